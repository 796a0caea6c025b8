#!/usr/bin/python3
"""Computes with numpy what each output of rearrange.mlasm must be (run with /usr/bin/python3;
the outputs are committed)."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    img = np.arange(1, 25, dtype=np.float32).reshape(4, 6)
    col_perm = np.array([1, 3, 0, 2, 5, 4])
    pix_perm = np.array([[23, 0, 17, 6, 11, 1], [5, 12, 18, 2, 22, 7],
                         [9, 14, 3, 20, 15, 10], [4, 21, 13, 16, 8, 19]])
    assert sorted(pix_perm.ravel()) == list(range(24))
    nchw = img.reshape(1, 1, 4, 6)
    left_zero = np.zeros_like(img)
    left_zero[:, :-1] = img[:, 1:]
    down_zero = np.zeros_like(img)
    down_zero[1:] = img[:-1]
    out = {
        "reshaped": img.reshape(3, 8),
        "permuted": img.T,
        "reflect_ud": img[::-1],
        "reflect_lr": img[:, ::-1],
        "rotate90": np.rot90(img),
        "rotate180": np.rot90(img, 2),
        "rotate270": np.rot90(img, -1),
        "shift_left": np.roll(img, -1, axis=1),
        "shift_left_up": np.roll(img, (-1, -1), axis=(0, 1)),
        "shift_left_zero": left_zero,
        "shift_down_zero": down_zero,
        "scale_up": nchw.repeat(2, axis=2).repeat(3, axis=3),
        "scale_down_max": nchw.reshape(1, 1, 2, 2, 3, 2).max(axis=(3, 5)),
        "scale_down_avg": nchw.reshape(1, 1, 2, 2, 3, 2).mean(axis=(3, 5)),
        "shuffle_cols": img[:, col_perm],
        "shuffle_pixels": img.ravel()[pix_perm],
        "rotate_then_roll": np.roll(np.rot90(img), 1, axis=0),
    }
    for name, value in out.items():
        np.save(os.path.join(HERE, "expected", f"{name}.npy"),
                np.ascontiguousarray(value, dtype=np.float32))
        print(name, value.shape)


if __name__ == "__main__":
    main()
