#!/usr/bin/python3
"""Writes the small .npy fixtures of tests/tensor/npy_test.cpp with NumPy.

Run with /usr/bin/python3 from anywhere; the files land next to this script in npy/.
Every array's values follow a formula that the C++ test recomputes independently:
the flat C-order index k of an element gives its value.

npy/bad/ holds corrupted files (made by editing NumPy's bytes or writing headers by hand);
npy_test.cpp names the error each must give. The directory is emptied of .npy files first,
so a renamed case leaves nothing stale behind.
"""
import glob
import io
import os

import numpy as np
from numpy.lib import format as npformat

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")
BAD = os.path.join(OUT, "bad")


def save(name, arr, version=None):
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        npformat.write_array(f, arr, version=version, allow_pickle=False)


def k(shape):
    return np.arange(int(np.prod(shape))).reshape(shape)


def npy_bytes(arr, version=None):
    buf = io.BytesIO()
    npformat.write_array(buf, arr, version=version, allow_pickle=False)
    return buf.getvalue()


def crafted(header, data=b"", version=1):
    """A file with a hand-written header text, padded as NumPy pads (data 64-byte aligned)."""
    pre = 10 if version == 1 else 12
    text = header + " " * (-(pre + len(header) + 1) % 64) + "\n"
    raw = text.encode("latin-1")
    length = len(raw).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + length + raw + data


def save_bad(name, data):
    with open(os.path.join(BAD, name), "wb") as f:
        f.write(data)


def write_bad_files():
    os.makedirs(BAD, exist_ok=True)
    for old in glob.glob(os.path.join(BAD, "*.npy")):
        os.remove(old)
    # f32[2, 3, 4]: a 118-byte header after the 10-byte preamble, data at 128, 96 data bytes.
    good = npy_bytes((k((2, 3, 4)) * 0.5 - 3).astype("<f4"))
    assert len(good) == 128 + 96 and good[8:10] == (118).to_bytes(2, "little")
    f4x24 = good[128:]

    def hdr(shape, descr="<f4", order="False"):
        return "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, order, shape)

    # The preamble.
    save_bad("empty.npy", b"")
    save_bad("truncated_preamble.npy", good[:8])
    save_bad("bad_magic.npy", b"\x93NUMPX" + good[6:])
    save_bad("bad_version.npy", good[:6] + bytes([9, 0]) + good[8:])
    save_bad("v2_truncated_length.npy", b"\x93NUMPY\x02\x00\x76\x00\x00")
    # The header.
    save_bad("truncated_header.npy", good[:40])
    save_bad("header_length_past_eof.npy", good[:8] + (0x7FFF).to_bytes(2, "little") + good[10:])
    save_bad("not_a_dict.npy", crafted("[('descr', '<f4'), ('shape', (2, 3, 4))]", f4x24))
    save_bad("missing_shape.npy", crafted("{'descr': '<f4', 'fortran_order': False, }", f4x24))
    save_bad("missing_descr.npy",
             crafted("{'fortran_order': False, 'shape': (2, 3, 4), }", f4x24))
    save_bad("missing_fortran_order.npy",
             crafted("{'descr': '<f4', 'shape': (2, 3, 4), }", f4x24))
    save_bad("unterminated_string.npy",
             crafted("{'descr': \"<f4', 'fortran_order': False, 'shape': (2, 3, 4), }", f4x24))
    save_bad("non_ascii_header.npy", crafted(hdr("(2, 3, 4)", descr="<f\xe9"), f4x24))
    save_bad("unknown_dtype.npy", crafted(hdr("(2, 3, 4)", descr="<U1"), f4x24))
    save_bad("object_dtype.npy", crafted(hdr("(24,)", descr="|O"), f4x24))
    save_bad("big_endian_f8.npy", npy_bytes(k((3, 4)).astype(">f8")))
    save_bad("negative_dim.npy", crafted(hdr("(2, -3, 4)"), f4x24))
    save_bad("shape_garbage.npy", crafted(hdr("('a', 3, 4)"), f4x24))
    save_bad("shape_float.npy", crafted(hdr("(2.5, 3, 4)"), f4x24))
    save_bad("shape_not_tuple.npy", crafted(hdr("24"), f4x24))
    save_bad("dim_past_int64.npy", crafted(hdr("(99999999999999999999,)"), f4x24))
    save_bad("huge_dims_overflow.npy", crafted(hdr("(4294967296, 4294967296, 4)"), f4x24))
    save_bad("data_size_overflow.npy",
             crafted(hdr("(2305843009213693952,)", descr="<f8"), f4x24))
    # The data.
    save_bad("truncated_data.npy", good[:-5])
    save_bad("shape_lies.npy", crafted(hdr("(100,)"), f4x24))
    save_bad("trailing_data.npy", crafted(hdr("(2, 3)"), f4x24))
    save_bad("bool_not_0_or_1.npy", crafted(hdr("(3,)", descr="|b1"), b"\x01\x00\x02"))
    save_bad("v2_shape_lies.npy", crafted(hdr("(5, 5)"), f4x24, version=2))


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
    # Fortran order for the other dtypes too, with value formulas (of the C-order index).
    save("f8_fortran.npy", np.asfortranarray((k((3, 2, 4)) * 0.25 - 1).astype("<f8")))
    save("i1_fortran.npy", np.asfortranarray((k((4, 5)) * 7 - 64).astype("|i1")))
    save("u1_fortran.npy", np.asfortranarray((k((2, 3, 5)) * 9 % 256).astype("|u1")))
    save("i4_fortran.npy", np.asfortranarray((k((3, 4)) * -123457 + 1000).astype("<i4")))
    save("i8_fortran.npy", np.asfortranarray((k((2, 3, 2)) * (2**50 + 3) - 2**62).astype("<i8")))
    save("b1_fortran.npy", np.asfortranarray((k((3, 5)) * 7 % 3 == 1).astype("|b1")))
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
    write_bad_files()


if __name__ == "__main__":
    main()
