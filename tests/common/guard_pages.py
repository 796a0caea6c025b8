"""NumPy arrays flush against an unreadable page, as tests/common/guard_pages.hpp makes tensors:
the byte after the last one an array's layout reaches (side "after") or the byte before its
first one (side "before") lies on a PROT_NONE page, so a kernel reading or writing outside the
array it is lent faults at once instead of reading a neighbour's bytes.

    from guard_pages import guarded
    y = session.run(x=guarded(x, "after"))["y"]

The mapping lives as long as the returned array (and any view of it)."""
import ctypes
import mmap
import weakref

import numpy as np

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_MAP_FAILED = ctypes.c_void_p(-1).value
_PROT_NONE, _PROT_READ_WRITE = 0, 3  # <sys/mman.h>; Python's mmap module does not export PROT_NONE


def _reach(shape, strides):
    """Lowest and one-past-highest byte offsets (from element 0) a layout reaches."""
    lo, hi = 0, 0
    if 0 in shape:
        return 0, 0
    for n, s in zip(shape, strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi


def guarded_bytes(nbytes, side="after"):
    """(address of the first byte, keepalive) for nbytes of read-write memory with a guard
    page directly after them (side "after") or directly before them ("before")."""
    assert side in ("after", "before")
    page = mmap.PAGESIZE
    body = (nbytes + page - 1) // page * page
    span = body + 2 * page
    base = _libc.mmap(None, span, _PROT_NONE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if base in (None, _MAP_FAILED):
        raise MemoryError("guard_pages: mmap failed")
    if body and _libc.mprotect(base + page, body, _PROT_READ_WRITE) != 0:
        _libc.munmap(base, span)
        raise OSError(ctypes.get_errno(), "guard_pages: mprotect failed")

    class Mapping:  # the keepalive: unmapped when the last array over it goes
        pass

    keep = Mapping()
    weakref.finalize(keep, _libc.munmap, base, span)
    start = base + page + body - nbytes if side == "after" else base + page
    return start, keep


def guarded(a, side="after", writable=None):
    """A copy of `a` with the same dtype, shape and strides (negative and zero strides kept),
    whose reachable bytes sit flush against a guard page on `side`. An empty array points at
    the guard page itself: any byte read through it faults."""
    a = np.asarray(a)
    lo, hi = _reach(a.shape, a.strides)
    nbytes = hi - lo + a.itemsize if a.size else 0
    start, keep = guarded_bytes(nbytes, side)
    buf = (ctypes.c_char * nbytes).from_address(start)
    buf._guard_keep = keep  # arrays over buf hold buf, and buf holds the mapping
    out = np.ndarray(a.shape, dtype=a.dtype, buffer=buf, offset=-lo, strides=a.strides if a.size else None)
    if a.size:
        out[...] = a
    out.flags.writeable = bool(a.flags.writeable if writable is None else writable)
    return out
