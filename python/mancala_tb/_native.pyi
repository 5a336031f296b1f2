"""Type stubs of the extension module; the classes are documented in their docstrings."""

import os
from pathlib import Path
from typing import Any, Sequence, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, os.PathLike[str]]
# Any integer array of shape (N, pits), or what numpy.asarray makes one of.
_Boards = npt.ArrayLike

class TableError(Exception):
    """A table cannot answer: not built, or damaged."""

class MissingTableError(TableError):
    """A table that is not built yet; the message names the build command."""

    build_command: str
    path: Path

class DamagedTableError(TableError):
    """A damaged, truncated, foreign or inconsistent table file."""

class Oware:
    """The Oware tables of one ruleset ("awari" or "abapa") in a tablebase folder."""

    def __init__(self, dir: _Path, rules: str = "awari") -> None: ...
    @property
    def dir(self) -> Path: ...
    @property
    def rules(self) -> str: ...
    def values(self, boards: _Boards) -> npt.NDArray[np.int8]:
        """The value of each position of an (N, 12) integer array: int8, shape (N,)."""
    def move_values(self, boards: _Boards) -> npt.NDArray[np.int8]:
        """Each pit's move value for the mover: int8, shape (N, 6), 127 where not legal."""
    def value(self, pits: Sequence[int]) -> int:
        """The value of one position of twelve pit counts."""
    def __reduce__(self) -> Any: ...

class Omweso:
    """The Omweso tables of one width, objective and ruleset, one per seed count."""

    def __init__(
        self,
        dir: _Path,
        width: int,
        objective: str = "wdl",
        reverse: str = "all-laps",
        endless: str = "void",
        okutema: bool = True,
    ) -> None: ...
    def values(self, boards: _Boards) -> npt.NDArray[Union[np.int8, np.int16]]:
        """Values of an (N, 4 × width) array: int8 points, or int16 d / 0 / −d − 1 (wdl)."""
    def value(self, pits: Sequence[int]) -> int:
        """The value of one position, the number values gives it."""
    def __reduce__(self) -> Any: ...

class EnGehe:
    """The En Gehé tables of one width and ruleset ("void" or "illegal")."""

    def __init__(self, dir: _Path, width: int, endless: str = "void") -> None: ...
    def values(self, boards: _Boards) -> npt.NDArray[np.int8]:
        """The value of each position of an (N, 2 × width) array: int8, shape (N,)."""
    def value(self, holes: Sequence[int]) -> int:
        """The value of one position of 2 × width hole counts."""
    def __reduce__(self) -> Any: ...
