"""mlvm: run mlvm programs (.mlasm, .mlbc, .onnx) on NumPy arrays.

    import numpy as np, mlvm
    prog = mlvm.load("model.mlbc")            # or assemble(text), load_bytes(b), from_onnx(path)
    sess = mlvm.Session(prog, threads=2)
    out = sess.run(x=np.ones((3, 4), np.float32))   # {"y": ndarray, ...}

Inputs are lent to mlvm in place and outputs are arrays over mlvm's own storage: nothing is
copied either way. The GIL is released while a program runs. Failures raise mlvm.Error
subclasses carrying where they happened. docs/python.md is the reference.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Tuple

import numpy as np

from . import _mlvm
from ._mlvm import Program, Session, assemble, from_onnx, load, load_bytes

__all__ = [
    "assemble", "load", "load_bytes", "from_onnx", "Program", "Session", "ValueInfo",
    "RunStats", "OpTiming", "Error", "MalformedError", "InvalidError", "TrapError",
    "LimitError", "UsageError", "IOError", "__version__",
]

__version__: str = _mlvm.__version__


# --- Exceptions ------------------------------------------------------------------------------
# One class per mlvm::ErrorKind. The C++ side (errors.cpp) raises them with every location
# part it knows; a part it does not know is None.

class Error(Exception):
    """An mlvm failure: .kind ("malformed", "invalid", "trap", "limit", "usage", "io"),
    .message, and where known .location (as the tools print it), .file, .line, .column
    (1-based) and .instruction (0-based index); None when unknown."""

    kind: str = "error"

    def __init__(self, message: str = "", *, kind: Optional[str] = None,
                 location: Optional[str] = None, file: Optional[str] = None,
                 line: Optional[int] = None, column: Optional[int] = None,
                 instruction: Optional[int] = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind
        self.message = message
        self.location = location
        self.file = file
        self.line = line
        self.column = column
        self.instruction = instruction

    def __str__(self) -> str:
        # An assembly error's message already holds every diagnostic with its position.
        if self.location and not self.message.startswith(self.location):
            return f"{self.location}: {self.message}"
        return self.message

    def __reduce__(self):  # picklable across processes (Dask ships worker errors back)
        return (_rebuild_error, (type(self), self.message, self.__dict__))


def _rebuild_error(cls, message, state):
    e = cls(message)
    e.__dict__.update(state)
    return e


class MalformedError(Error):
    """Bytes that do not decode: a module, an ONNX file."""
    kind = "malformed"


class InvalidError(Error):
    """A well-formed program that breaks a static rule, or an input whose shape or values
    break the program's declarations."""
    kind = "invalid"


class TrapError(Error):
    """A data-dependent failure at run time (an index out of range, ...)."""
    kind = "trap"


class LimitError(Error):
    """A resource limit was hit: max_memory, max_steps, or Session.cancel()."""
    kind = "limit"


class UsageError(Error, ValueError):
    """The mlvm API used wrongly past the binding's own checks (e.g. one Session run by two
    threads at once). Also a ValueError."""
    kind = "usage"


class IOError(Error, OSError):  # noqa: A001 - mlvm.IOError, deliberately named after the kind
    """A file cannot be read or written. Also an OSError (not the builtin IOError alias)."""
    kind = "io"


# --- Plain records -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ValueInfo:
    """A program input or output: name, NumPy dtype, shape (None marks a dim known only at
    run time) and integer precision (bits every value fits in; 0 when none declared)."""
    name: str
    dtype: np.dtype
    shape: Tuple[Optional[int], ...]
    precision: int = 0

    def __repr__(self) -> str:
        p = f", precision={self.precision}" if self.precision else ""
        return (f"mlvm.ValueInfo(name={self.name!r}, dtype=np.dtype({str(self.dtype)!r}), "
                f"shape={self.shape!r}{p})")


@dataclasses.dataclass(frozen=True)
class OpTiming:
    """Time spent in one op kind over a run (Session(profile=True))."""
    op: str
    count: int
    seconds: float
    bytes: int


@dataclasses.dataclass(frozen=True)
class RunStats:
    """What a run measured: completed (False: it raised), steps (instructions executed),
    seconds (in the run loop), peak_bytes and allocated_bytes (tensor storage), ops (per-op
    timings, slowest first, with profile=True; else empty)."""
    completed: bool
    steps: int
    seconds: float
    peak_bytes: int
    allocated_bytes: int
    ops: list = dataclasses.field(default_factory=list)


_mlvm._init({"usage": UsageError, "io": IOError, "malformed": MalformedError,
             "invalid": InvalidError, "trap": TrapError, "limit": LimitError},
            ValueInfo, RunStats, OpTiming)


# --- Program: pickling and one-off runs --------------------------------------------------------

def _program_reduce(self: Program):
    # A Program pickles as its module bytes, verified again on arrival. The loader is a
    # Python function: pickle cannot name a pybind11 builtin (its __self__ is a capsule).
    return (_program_from_bytes, (self.to_bytes(),))


def _program_from_bytes(data: bytes) -> Program:
    return load_bytes(data)


def _program_run(self: Program, inputs: Optional[Mapping[str, Any]] = None, /,
                 **kwargs: Any) -> dict:
    """Runs the program once in a fresh default Session: run(x=a) or run({"x": a})."""
    session = Session(self)
    return session.run(kwargs) if inputs is None else session.run(inputs, **kwargs)


def _program_eq(self: Program, other: object) -> bool:
    """Programs are equal when their module bytes are (the debug section, which records the
    source file's name, is part of them)."""
    if not isinstance(other, Program):
        return NotImplemented
    return self is other or self.to_bytes() == other.to_bytes()


Program.__reduce__ = _program_reduce
Program.run = _program_run
Program.__eq__ = _program_eq
Program.__hash__ = lambda self: hash(self.to_bytes())
for _cls in (Program, Session):
    _cls.__module__ = "mlvm"
del _cls
