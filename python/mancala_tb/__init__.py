"""Perfect-play values of mancala positions from mancala-tb tablebases.

Build the tables with the ``mancala-tb`` command line (``mancala-tb build
oware``), then probe whole numpy arrays of positions at once::

    import numpy as np
    import mancala_tb

    tb = mancala_tb.Oware("tablebases", rules="awari")
    boards = np.array([[3, 0, 1, 2, 0, 1, 0, 2, 1, 0, 1, 1]], dtype=np.uint8)
    tb.values(boards)       # array([2], dtype=int8)
    tb.move_values(boards)  # one row of 6: each pit's value, 127 if not legal

``Oware``, ``Omweso`` and ``EnGehe`` hold the tables of one game and
ruleset; ``mancala_tb.openspiel`` reads OpenSpiel ``oware`` states.
"""

from mancala_tb._native import (
    DamagedTableError,
    EnGehe,
    MissingTableError,
    Omweso,
    Oware,
    TableError,
)
from mancala_tb import openspiel

__all__ = [
    "DamagedTableError",
    "EnGehe",
    "MissingTableError",
    "Omweso",
    "Oware",
    "TableError",
    "openspiel",
]
