"""Type stubs of the extension module; the classes are documented in their docstrings."""

import os
from pathlib import Path
from typing import Any, Sequence, Union, final

import numpy as np
import numpy.typing as npt

__all__ = ["DamagedTableError", "EnGehe", "MissingTableError", "Omweso", "Oware", "TableError"]

_Path = Union[str, os.PathLike[str]]
# Any integer array of shape (N, pits), or what numpy.asarray makes one of.
_Boards = npt.ArrayLike
# One position: a sequence of integers, or a 1-D integer array.
_Pits = Union[Sequence[int], npt.NDArray[np.integer[Any]]]

class TableError(Exception):
    """A table cannot answer: not built, or damaged."""

class MissingTableError(TableError):
    """A table that is not built yet; the message names the build command."""

    build_command: str
    path: Path

class DamagedTableError(TableError):
    """A damaged, truncated, foreign or inconsistent table file."""

@final
class Oware:
    """The Oware tables of one ruleset ("awari" or "abapa") in a tablebase folder."""

    def __new__(cls, dir: _Path, rules: str = "awari") -> Oware: ...
    @property
    def dir(self) -> Path: ...
    @property
    def rules(self) -> str: ...
    def values(self, boards: _Boards) -> npt.NDArray[np.int8]:
        """The value of each position of an (N, 12) integer array: int8, shape (N,)."""
    def move_values(self, boards: _Boards) -> npt.NDArray[np.int8]:
        """Each pit's move value for the mover: int8, shape (N, 6), 127 where not legal."""
    def distances(self, boards: _Boards) -> npt.NDArray[np.int16]:
        """Moves to the capture that secures each position's value: int16, shape (N,)."""
    def value(self, pits: _Pits) -> int:
        """The value of one position of twelve pit counts."""
    def __reduce__(self) -> Any: ...

@final
class Omweso:
    """The Omweso tables of one width, objective and ruleset, one per seed count."""

    def __new__(
        cls,
        dir: _Path,
        width: int,
        objective: str = "wdl",
        reverse: str = "all-laps",
        endless: str = "void",
        okutema: bool = True,
    ) -> Omweso: ...
    def values(self, boards: _Boards) -> npt.NDArray[Union[np.int8, np.int16]]:
        """Values of an (N, 4 × width) array: int8 points, or int16 d / 0 / −d − 1 (wdl)."""
    def value(self, pits: _Pits) -> int:
        """The value of one position, the number values gives it."""
    def __reduce__(self) -> Any: ...

@final
class EnGehe:
    """The En Gehé tables of one width and ruleset ("void" or "illegal")."""

    def __new__(cls, dir: _Path, width: int, endless: str = "void") -> EnGehe: ...
    def values(self, boards: _Boards) -> npt.NDArray[np.int8]:
        """The value of each position of an (N, 2 × width) array: int8, shape (N,)."""
    def value(self, holes: _Pits) -> int:
        """The value of one position of 2 × width hole counts."""
    def __reduce__(self) -> Any: ...
