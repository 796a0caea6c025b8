#!/usr/bin/python3
"""The PyTorch side of the whole-model benchmark (bench/models/): one process serves one model
at one thread count, so driver.py can interleave its runs with mlvm's and ONNX Runtime's.

  torch_server.py CACHE_DIR NAME THREADS

The model is rebuilt from tests/common/torch_models.py and given the weights export.py saved
(CACHE_DIR/NAME.pt), so it is the model the .onnx file holds; its input is CACHE_DIR/NAME.x.npy.
Protocol as ort_server.js: "ready SECONDS" after loading, then one reply line per command:
"run" -> "ok SECONDS" (the forward call alone, eval mode, inside torch.inference_mode()),
"dump PATH.npy" -> "ok", "quit". Errors are "error MESSAGE".
The caller sets OMP_NUM_THREADS=THREADS too: torch sizes its pool when it loads.
"""
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "common"))
import torch_models  # noqa: E402


def main():
    cache, name, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.set_num_threads(threads)
    t0 = time.perf_counter()
    model, _ = torch_models.build(name)
    model.load_state_dict(torch.load(os.path.join(cache, name + ".pt")))
    model.eval()
    x = torch.from_numpy(np.load(os.path.join(cache, name + ".x.npy")))
    print(f"ready {time.perf_counter() - t0:.9e}", flush=True)
    with torch.inference_mode():
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            try:
                if words[0] == "quit":
                    break
                if words[0] == "run":
                    t0 = time.perf_counter()
                    y = model(x)
                    t1 = time.perf_counter()
                    del y  # releasing the result is not part of computing it
                    print(f"ok {t1 - t0:.9e}", flush=True)
                elif words[0] == "dump":
                    np.save(words[1], model(x).numpy())
                    print("ok", flush=True)
                else:
                    print(f"error unknown command {words[0]}", flush=True)
            except Exception as e:  # reported to the driver, which marks the model failed
                print("error " + f"{type(e).__name__}: {e}".replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
