"""bench/results.md holds one section per benchmark (the kernel rows of bench.py, the whole
models of bench/models/) and kind of machine, each between `<!-- results:NAME -->` and
`<!-- /results:NAME -->`, so each benchmark rewrites its own section for the machine it ran on
and leaves the others as they are: figures from one kind of machine (an AVX2 CPU against an
AVX-512 one) do not carry over to another, so each kind keeps its table."""

import os
import re

TITLE = "# mlvm benchmark results\n"


def replace_section(path, name, body):
    begin, end = f"<!-- results:{name} -->", f"<!-- /results:{name} -->"
    block = f"{begin}\n{body.rstrip()}\n{end}"
    text = TITLE
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    a, b = text.find(begin), text.find(end)
    if a >= 0 and b > a:
        text = text[:a] + block + text[b + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


def cpu_info(cpuinfo="/proc/cpuinfo"):
    """The first CPU's model name ("unknown CPU" if none is listed) and its feature flags."""
    cpu, flags = "unknown CPU", set()
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith("model name") and cpu == "unknown CPU":
                    cpu = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return cpu, flags


def machine_kind(cpuinfo="/proc/cpuinfo"):
    """The kind of machine figures belong to: the CPU's model name and its widest SIMD level
    (the level mlvm runs at by default), e.g. "AMD EPYC, AVX-512"."""
    cpu, flags = cpu_info(cpuinfo)
    level = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags and "fma" in flags else "SSE2"
    return f"{cpu}, {level}"


# The words a machine kind gets when an AVX-512 machine stood in for an AVX2 one (--isa avx2 of
# bench.py, driver.py and apps.py: mlvm at MLVM_SIMD=avx2, the peers with the library below
# preloaded), so that every benchmark files those figures under the same section kind.
AVX2_STAND_IN = " (AVX2: MLVM_SIMD=avx2, the peers' AVX-512 hidden from their CPUID)"


def cpuid_avx2_library(build):
    """bench/cpuid_avx2.cpp's library in build directory `build`: preloaded into a peer's
    process, it hides AVX-512, VNNI and AMX from CPUID."""
    return os.path.join(build, "bench", "libmlvm_cpuid_avx2.so")


def section_name(bench, kind):
    """The results.md section of `bench` ("kernels", "models") measured on machines of `kind`."""
    slug = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")
    return f"{bench}:{slug}"
