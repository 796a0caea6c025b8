#!/usr/bin/python3
"""Exports the benchmark's models once into a cache directory (bench/models/, run by driver.py):

  export.py CACHE_DIR NAME...
  export.py --list          the model names, one a line

For each NAME of tests/common/torch_models.py it writes NAME.onnx (the model every engine
runs), NAME.x.npy (the one input), NAME.y.npy (torch's output, the reference every engine is
checked against) and NAME.pt (the weights, for torch_server.py). A model is exported again
only when tests/common/torch_models.py or the torch version changed (NAME.stamp records them).
"""
import hashlib
import os
import sys

import numpy as np
import torch

COMMON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "common")
sys.path.insert(0, COMMON)
import torch_models  # noqa: E402


def stamp():
    with open(os.path.join(COMMON, "torch_models.py"), "rb") as f:
        return f"{hashlib.sha256(f.read()).hexdigest()} torch {torch.__version__}\n"


def export_one(cache, name, want_stamp):
    stamp_path = os.path.join(cache, name + ".stamp")
    if os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if f.read() == want_stamp:
                return False
    model, x = torch_models.build(name)
    with torch.no_grad():
        y = model(x).numpy()
    base = os.path.join(cache, name)
    torch_models.export(model, x, base + ".onnx")
    np.save(base + ".x.npy", x.numpy())
    np.save(base + ".y.npy", y)
    torch.save(model.state_dict(), base + ".pt")
    with open(stamp_path, "w") as f:  # last: an interrupted export is redone next time
        f.write(want_stamp)
    return True


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(torch_models.models()))
        return 0
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 1
    cache = sys.argv[1]
    os.makedirs(cache, exist_ok=True)
    torch.set_num_threads(1)  # the reference output with one thread, as the test takes it
    want = stamp()
    for name in sys.argv[2:]:
        if export_one(cache, name, want):
            print(f"exported {name}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
