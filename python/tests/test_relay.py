"""Omweso and En Gehé values against `mancala-tb probe omweso|engehe`."""

import numpy as np
import pytest

import mancala_tb
from conftest import (
    ENGEHE_COUNTERS,
    ENGEHE_WIDTH,
    OMWESO_SEEDS,
    OMWESO_WIDTH,
    compositions,
    probe_text,
)


def omweso_number(answer: str) -> int:
    """`probe omweso`'s answer as `Omweso.values` gives it."""
    words = answer.split()
    if words[0] == "win":
        return int(words[2])
    if words[0] == "loss":
        return -int(words[2]) - 1
    return 0 if words == ["draw"] else int(answer)


@pytest.mark.parametrize("objective, dtype", [("wdl", np.int16), ("points", np.int8)])
def test_omweso_values_equal_the_binary(tables, objective, dtype):
    pits = 4 * OMWESO_WIDTH
    boards = np.array(
        [c for seeds in OMWESO_SEEDS for c in compositions(seeds, pits)], dtype=np.uint8
    )
    np.random.default_rng(3).shuffle(boards)
    options = ["--width", str(OMWESO_WIDTH), "--objective", objective, "--dir", str(tables)]
    answers = [omweso_number(a) for a in probe_text("omweso", options, boards)]
    tb = mancala_tb.Omweso(tables, OMWESO_WIDTH, objective=objective)
    got = tb.values(boards)
    assert got.dtype == dtype and got.shape == (len(boards),)
    np.testing.assert_array_equal(got, answers)
    # Wins, draws and losses all occur, and the start position is one.
    assert {np.sign(v) for v in got} == {-1, 0, 1}
    for row in range(0, len(boards), 101):
        assert tb.value(boards[row]) == answers[row]
    np.testing.assert_array_equal(tb.values(boards.astype(np.int64)), answers)


def test_engehe_values_equal_the_binary(tables):
    holes = 2 * ENGEHE_WIDTH
    boards = np.array(
        [c for n in range(ENGEHE_COUNTERS + 1) for c in compositions(n, holes)], dtype=np.uint8
    )
    np.random.default_rng(4).shuffle(boards)
    options = ["--width", str(ENGEHE_WIDTH), "--dir", str(tables)]
    answers = [int(a) for a in probe_text("engehe", options, boards)]
    tb = mancala_tb.EnGehe(tables, ENGEHE_WIDTH)
    got = tb.values(boards)
    assert got.dtype == np.int8 and got.shape == (len(boards),)
    np.testing.assert_array_equal(got, answers)
    assert len(set(answers)) > 5
    for row in range(0, len(boards), 37):
        assert tb.value(boards[row]) == answers[row]
