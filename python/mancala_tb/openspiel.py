"""OpenSpiel's ``oware`` states, read by the tables.

``board(state)`` gives the twelve pits of a state as the tables take them,
the mover's six first; ``value(tb, state)`` its value. OpenSpiel is not
imported: any object with the methods of an OpenSpiel state will do.

How OpenSpiel's rules relate to ``abapa``
-----------------------------------------
The moves are the same: sowing skips the origin house, captures take 2 or
3 backwards through the opponent's row, a grand slam captures nothing, a
mover must feed an opponent without seeds, and if no move can, the mover
takes the seeds left; a mover without seeds leaves them to the opponent.
Open the tables with ``rules="abapa"``: ``value`` refuses others.

OpenSpiel ends the game as soon as a player has captured more than half of
the seeds (or both have half). That never changes who wins: the seeds left
cannot overturn it. ``value`` still counts them as if play went on, so it is
the seeds the mover captures from here on minus the opponent's, and the
result OpenSpiel's returns give under perfect play is the sign of
``mover's score - opponent's score + value``.

OpenSpiel also ends the game at the first repeated position since the last
capture, each player taking the seeds on their own row. The tables score
play that goes on for ever as an even split (0 from there), as a positional
table must: OpenSpiel's outcome depends on the boards played since the last
capture, not on the position. So where best play would repeat a position,
or a side can gain by steering into a repetition with more seeds on its
row, OpenSpiel's own game can end otherwise than ``value`` says; in every
other line they agree.
"""

from typing import Any

import numpy as np

from mancala_tb._native import Oware

PITS = 12


def board(state: Any) -> np.ndarray:
    """The pits of an OpenSpiel ``oware`` state seen from the mover.

    A ``uint8`` array of 12: the mover's houses, counter-clockwise from the
    mover's leftmost, then the opponent's. Raises ``ValueError`` for a
    finished game (no one is to move) or a board without 12 houses.
    """
    if state.is_terminal():
        raise ValueError("the game is over: no side is to move")
    mover = state.current_player()
    # "PLAYER | SCORE0 SCORE1 | HOUSE0 ... HOUSE11": houses 0-5 are player
    # 0's, numbered counter-clockwise from player 0's leftmost.
    houses = [int(s) for s in state.observation_string(mover).split("|")[2].split()]
    if len(houses) != PITS:
        raise ValueError(
            f"an Oware board has {PITS} houses, this one {len(houses)} "
            "(OpenSpiel's num_houses_per_player must be 6)"
        )
    first = mover * PITS // 2
    return np.array(houses[first:] + houses[:first], dtype=np.uint8)


def value(tb: Oware, state: Any) -> int:
    """The value of an OpenSpiel ``oware`` state for the side to move.

    ``tb.value(board(state))``: the seeds the mover captures from here on
    minus the opponent's under perfect play, by the ``abapa`` tables (see the
    module's notes on where OpenSpiel's end of the game differs).
    """
    if tb.rules != "abapa":
        raise ValueError(
            f"OpenSpiel's oware plays the abapa rules, these tables are {tb.rules}: "
            'open them with rules="abapa"'
        )
    return tb.value(board(state))
