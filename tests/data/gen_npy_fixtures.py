#!/usr/bin/python3
"""Writes the small .npy fixtures of tests/tensor/npy_test.cpp with NumPy.

Run with /usr/bin/python3 from anywhere; the files land next to this script in npy/.
Every array's values follow a formula that the C++ test recomputes independently:
the flat C-order index k of an element gives its value.
"""
import os

import numpy as np
from numpy.lib import format as npformat

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")


def save(name, arr, version=None):
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        npformat.write_array(f, arr, version=version, allow_pickle=False)


def k(shape):
    return np.arange(int(np.prod(shape))).reshape(shape)


def main():
    os.makedirs(OUT, exist_ok=True)
    # One per dtype, C order; value formulas are repeated in npy_test.cpp.
    save("f4_c.npy", (k((2, 3, 4)) * 0.5 - 3).astype("<f4"))
    save("f8_c.npy", (k((3, 5)) ** 2 / 7.0).astype("<f8"))
    save("i1_c.npy", (k((4, 6)) * 5 - 60).astype("|i1"))
    save("u1_c.npy", ((k((20,)) * 13) % 256).astype("|u1"))
    save("i2_c.npy", (k((5, 4)) * 1000 - 9000).astype("<i2"))
    save("i4_c.npy", (k((2, 2, 2)) * 100000000 - 300000000).astype("<i4"))
    save("i8_c.npy", np.array([-(2**63), 1234567890123, 2**63 - 1], dtype="<i8"))
    save("b1_c.npy", (k((7,)) % 3 == 0).astype("|b1"))
    # Fortran order: the same logical arrays (value = C-order flat index), stored column-major.
    save("f4_fortran.npy", np.asfortranarray(k((3, 4)).astype("<f4")))
    save("i2_fortran.npy", np.asfortranarray(k((2, 3, 4)).astype("<i2")))
    save("f8_fortran_empty.npy", np.asfortranarray(np.zeros((0, 3), dtype="<f8")))
    # 0-d, empty, rank 8.
    save("f8_0d.npy", np.array(3.5, dtype="<f8"))
    save("f4_empty.npy", np.zeros((0, 3), dtype="<f4"))
    save("i4_empty.npy", np.zeros((2, 0, 5), dtype="<i4"))
    save("u1_rank8.npy", k((1, 2, 1, 2, 1, 2, 1, 2)).astype("|u1"))
    # Format versions 2.0 and 3.0.
    save("i4_v2.npy", (k((2, 3)) - 3).astype("<i4"), version=(2, 0))
    save("f4_v3.npy", (k((2,)) + 0.25).astype("<f4"), version=(3, 0))
    # Files that must be rejected cleanly.
    save("bad_big_endian.npy", k((3,)).astype(">i4"))
    save("bad_u2.npy", k((3,)).astype("<u2"))
    save("bad_c8.npy", k((2,)).astype("<c8"))
    save("bad_rank9.npy", np.zeros((1,) * 9, dtype="|u1"))
    save("bad_structured.npy", np.zeros((2,), dtype=[("a", "<f4"), ("b", "<i4")]))


if __name__ == "__main__":
    main()
