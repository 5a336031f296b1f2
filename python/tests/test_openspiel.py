"""`mancala_tb.openspiel` on real OpenSpiel states (`pip install open_spiel`):
OpenSpiel's moves, captures and scores against the abapa tables."""

import random

import numpy as np
import pytest

import mancala_tb
from mancala_tb import openspiel

pyspiel = pytest.importorskip("pyspiel")

NOT_LEGAL = 127


def scores(state) -> list:
    """Both players' captured seeds: "PLAYER | SCORE0 SCORE1 | HOUSES"."""
    return [int(s) for s in state.observation_string(0).split("|")[1].split()]


def houses(state) -> list:
    return [int(s) for s in state.observation_string(0).split("|")[2].split()]


def states(games: int, seeds_per_house: int):
    """Every state of random games (one seed a house: 12 seeds in all)."""
    game = pyspiel.load_game("oware", {"num_seeds_per_house": seeds_per_house})
    rng = random.Random(6)
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            yield state
            state = state.child(rng.choice(state.legal_actions()))


def test_board_is_the_movers_view():
    game = pyspiel.load_game("oware")
    state = game.new_initial_state()
    np.testing.assert_array_equal(openspiel.board(state), [4] * 12)
    state.apply_action(2)  # player 0 sows house C: D, E, F and player 1's a
    assert state.current_player() == 1
    assert houses(state) == [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]
    np.testing.assert_array_equal(
        openspiel.board(state), [5, 4, 4, 4, 4, 4, 4, 4, 0, 5, 5, 5]
    )
    assert openspiel.board(state).dtype == np.uint8


def test_openspiel_moves_and_captures_are_the_abapa_tables(tables):
    tb = mancala_tb.Oware(tables, rules="abapa")
    checked = 0
    for state in states(games=40, seeds_per_house=1):
        board = openspiel.board(state)
        mover = state.current_player()
        assert board.sum() + sum(scores(state)) == 12
        moves = tb.move_values(board[None])[0]
        legal = [pit for pit in range(6) if moves[pit] != NOT_LEGAL]
        assert legal == sorted(state.legal_actions()), state
        assert openspiel.value(tb, state) == moves[legal].max()
        for pit in legal:
            child = state.child(pit)
            gain = [after - before for after, before in zip(scores(child), scores(state))]
            captured = gain[mover] - gain[1 - mover]
            if not child.is_terminal():
                assert moves[pit] == captured - openspiel.value(tb, child), (state, pit)
            elif sum(houses(child)) > 0:
                # Ended with more than half captured: the seeds left still count.
                left = houses(child)
                first = 6 * (1 - mover)
                after = left[first:] + left[:first]
                assert moves[pit] == captured - tb.value(after), (state, pit)
            else:
                # Ended by a repetition or a side that cannot move, each side
                # taking the seeds on its row: the tables agree unless it
                # was a repetition, which they score as an even split.
                continue
            checked += 1
    assert checked > 1000


def test_value_needs_the_abapa_tables_and_a_side_to_move(tables):
    state = pyspiel.load_game("oware", {"num_seeds_per_house": 1}).new_initial_state()
    with pytest.raises(ValueError, match='rules="abapa"'):
        openspiel.value(mancala_tb.Oware(tables), state)
    game = pyspiel.load_game("oware", {"num_seeds_per_house": 1})
    state = game.new_initial_state()
    rng = random.Random(7)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    with pytest.raises(ValueError, match="the game is over"):
        openspiel.board(state)
    with pytest.raises(ValueError, match="12 houses, this one 8"):
        openspiel.board(pyspiel.load_game("oware", {"num_houses_per_player": 4}).new_initial_state())
