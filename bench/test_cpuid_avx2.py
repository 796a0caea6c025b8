#!/usr/bin/python3
"""libmlvm_cpuid_avx2.so (bench/cpuid_avx2.cpp): preloaded, CPUID shows no AVX-512 or VNNI and
the same AVX2 bit; the process's own SIGSEGV handler still runs and a fault with none still
ends the process; where the CPU or kernel cannot fault on CPUID the library refuses to start.
Usage: test_cpuid_avx2.py PROBE LIBRARY (bench/cpuid_probe.cpp and the library)."""

import os
import signal
import subprocess
import sys


def run(probe, lib, *args):
    env = dict(os.environ)
    if lib:
        env["LD_PRELOAD"] = lib
    return subprocess.run([probe, *args], capture_output=True, text=True, env=env, timeout=30)


def bits(text):
    words = text.split()
    return dict(zip(words[::2], (int(w) for w in words[1::2])))


def main():
    probe, lib = sys.argv[1:3]
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    masked = run(probe, lib)
    if "cpuid_fault" not in flags:
        assert masked.returncode == 97, masked
        assert "cannot fault on CPUID" in masked.stderr, masked.stderr
        print("no CPUID faulting here: the library refuses to start, as it should")
        return 0
    plain = bits(run(probe, None).stdout)
    assert masked.returncode == 0, masked
    seen = bits(masked.stdout)
    assert seen["avx2"] == plain["avx2"], (plain, seen)
    for name in ("avx512f", "avx512bw", "avx512vnni", "avx_vnni"):
        assert seen[name] == 0, (name, plain, seen)
    handled = run(probe, lib, "handler")
    assert handled.returncode == 42, handled
    crashed = run(probe, lib, "fault")
    assert crashed.returncode == -signal.SIGSEGV, crashed
    print(f"unmasked {plain}, masked {seen}; own handler ran; a fault without one still ends the process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
