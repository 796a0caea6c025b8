#!/usr/bin/python3
"""Writes the SNN sample's input spike trains and weights, and simulates the same leaky
integrate-and-fire layer in numpy (independently of mlvm) for the expected outputs.

Each step t:  I = W . s_t             synaptic current from this step's input spikes
              v = decay * v + I       leak, integrate
              fired = v >= vth        fire
              v = 0 where fired       reset
Run with /usr/bin/python3; the outputs are committed.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
T, N_IN, N_OUT = 25, 32, 16
DECAY, VTH = np.float32(0.9), np.float32(1.0)


def main():
    rng = np.random.RandomState(7)
    rates = rng.uniform(0.05, 0.5, size=N_IN)                 # per-input firing probability
    spikes = (rng.uniform(size=(T, N_IN)) < rates).astype(np.float32)
    w = (rng.normal(0.0, 0.25, size=(N_OUT, N_IN)) + 0.04).astype(np.float32)

    v32 = np.zeros((1, N_OUT), dtype=np.float32)   # float32, as the program computes
    v64 = np.zeros((1, N_OUT), dtype=np.float64)   # float64 shadow: decisions must agree
    count = np.zeros((1, N_OUT), dtype=np.int32)
    raster = np.zeros((T, N_OUT), dtype=bool)
    margin = np.inf
    for t in range(T):
        s = spikes[t:t + 1]
        v32 = v32 * DECAY + (s @ w.T).astype(np.float32)
        v64 = v64 * np.float64(DECAY) + s.astype(np.float64) @ w.astype(np.float64).T
        fired = v32 >= VTH
        assert np.array_equal(fired, v64 >= 1.0)
        # a value this close to the threshold could flip with another summation order
        margin = min(margin, float(np.abs(v64 - 1.0).min()))
        count += fired
        raster[t] = fired[0]
        v32 = np.where(fired, np.float32(0), v32)
        v64 = np.where(fired, 0.0, v64)
    assert margin > 1e-4, f"membrane potential within {margin} of the threshold"

    np.save(os.path.join(HERE, "spikes_in.npy"), spikes)
    np.save(os.path.join(HERE, "weights.npy"), w)
    np.save(os.path.join(HERE, "expected", "count.npy"), count)
    np.save(os.path.join(HERE, "expected", "raster.npy"), raster)
    np.save(os.path.join(HERE, "expected", "v.npy"), v32)
    print("input spikes per step:", spikes.sum(axis=1).astype(int))
    print("spike counts:", count[0])
    print(f"total output spikes {count.sum()}, closest approach to the threshold {margin:.2e}")


if __name__ == "__main__":
    main()
