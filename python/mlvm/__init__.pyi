# Type stubs of the mlvm package (the extension mlvm._mlvm and the Python layer).
import os
from typing import Any, List, Mapping, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, os.PathLike[str]]
_Buffer = Union[bytes, bytearray, memoryview]
_Shapes = Mapping[str, Tuple[int, ...] | List[int]]

class Error(Exception):
    kind: str
    message: str
    location: Optional[str]
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    instruction: Optional[int]
    def __init__(self, message: str = ..., *, kind: Optional[str] = ...,
                 location: Optional[str] = ..., file: Optional[str] = ...,
                 line: Optional[int] = ..., column: Optional[int] = ...,
                 instruction: Optional[int] = ...) -> None: ...

class MalformedError(Error): ...
class InvalidError(Error): ...
class TrapError(Error): ...
class LimitError(Error): ...
class UsageError(Error, ValueError): ...
class IOError(Error, OSError): ...

class ValueInfo:
    name: str
    dtype: np.dtype[Any]
    shape: Tuple[Optional[int], ...]
    precision: int
    def __init__(self, name: str, dtype: np.dtype[Any], shape: Tuple[Optional[int], ...],
                 precision: int = ...) -> None: ...

class OpTiming:
    op: str
    count: int
    seconds: float
    bytes: int

class RunStats:
    completed: bool
    steps: int
    seconds: float
    peak_bytes: int
    allocated_bytes: int
    ops: List[OpTiming]

class Program:
    @property
    def name(self) -> str: ...
    @property
    def inputs(self) -> List[ValueInfo]: ...
    @property
    def outputs(self) -> List[ValueInfo]: ...
    def to_bytes(self) -> bytes: ...
    def run(self, inputs: Optional[Mapping[str, npt.NDArray[Any]]] = None, /,
            **kwargs: npt.NDArray[Any]) -> dict[str, npt.NDArray[Any]]: ...
    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]: ...

class Session:
    def __init__(self, program: Program, threads: Optional[int] = None,
                 max_memory: Optional[int] = None, max_steps: Optional[int] = None,
                 profile: bool = False) -> None: ...
    def run(self, inputs: Optional[Mapping[str, npt.NDArray[Any]]] = None, /,
            **kwargs: npt.NDArray[Any]) -> dict[str, npt.NDArray[Any]]: ...
    def cancel(self) -> None: ...
    @property
    def last_stats(self) -> Optional[RunStats]: ...
    @property
    def program(self) -> Program: ...
    @property
    def threads(self) -> int: ...

def assemble(text: str, filename: str = "<memory>", *, precision_check: bool = True,
             strict_precision: bool = False) -> Program: ...
def load(path: _Path, *, precision_check: bool = True, strict_precision: bool = False,
         input_shapes: Optional[_Shapes] = None) -> Program: ...
def load_bytes(data: _Buffer, *, precision_check: bool = True,
               strict_precision: bool = False) -> Program: ...
def from_onnx(model: Union[_Path, _Buffer], input_shapes: Optional[_Shapes] = None) -> Program: ...
