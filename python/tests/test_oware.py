"""Oware values and move values against `mancala-tb probe oware --json`."""

import shutil

import numpy as np
import pytest

import mancala_tb
from conftest import OWARE_SEEDS, compositions, probe_json, random_positions, run

RULES = ("awari", "abapa")
NOT_LEGAL = 127


def expected(rules: str, tables, boards: np.ndarray):
    """The binary's values and move values (127 where a pit is not legal)."""
    answers = probe_json("oware", ["--rules", rules, "--dir", str(tables)], boards)
    values = np.array([a["value"] for a in answers], dtype=np.int8)
    moves = np.full((len(boards), 6), NOT_LEGAL, dtype=np.int8)
    for row, a in enumerate(answers):
        for m in a["moves"]:
            moves[row, m["pit"]] = m["value"]
    return values, moves


def test_layer_sizes_of_the_test_positions():
    # size(n) = C(n+11, 11) counts every position, in or out of the index.
    assert sum(1 for _ in compositions(7, 12)) == 31824


@pytest.fixture(scope="module", params=RULES)
def rules(request):
    return request.param


@pytest.fixture(scope="module")
def every_small(rules, tables):
    """Every position of 0 to 7 seeds, mixed, with the binary's answers."""
    boards = np.array(
        [c for seeds in range(8) for c in compositions(seeds, 12)], dtype=np.uint8
    )
    np.random.default_rng(1).shuffle(boards)
    return boards, *expected(rules, tables, boards)


@pytest.fixture(scope="module")
def random_large(rules, tables):
    """1,000 random positions of each layer 8 to 12, mixed."""
    rng = np.random.default_rng(2)
    boards = np.concatenate(
        [random_positions(rng, seeds, 12, 1000) for seeds in range(8, OWARE_SEEDS + 1)]
    )
    rng.shuffle(boards)
    return boards, *expected(rules, tables, boards)


@pytest.mark.parametrize("case", ["every_small", "random_large"])
def test_values_and_move_values_equal_the_binary(case, rules, tables, request):
    boards, values, moves = request.getfixturevalue(case)
    tb = mancala_tb.Oware(tables, rules=rules)
    got = tb.values(boards)
    assert got.dtype == np.int8 and got.shape == (len(boards),)
    np.testing.assert_array_equal(got, values)
    got = tb.move_values(boards)
    assert got.dtype == np.int8 and got.shape == (len(boards), 6)
    np.testing.assert_array_equal(got, moves)
    # The best move's value is the position's (the game over: no move).
    legal = moves != NOT_LEGAL
    over = ~legal.any(axis=1)
    best = np.where(legal, moves, -128).max(axis=1)
    np.testing.assert_array_equal(best[~over], values[~over])


def test_one_position_equals_the_batch(every_small, rules, tables):
    boards, values, _ = every_small
    tb = mancala_tb.Oware(tables, rules=rules)
    for row in range(0, len(boards), 997):
        assert tb.value(boards[row]) == values[row]
        assert tb.value(list(map(int, boards[row]))) == values[row]
    # The start of a game with one seed a pit, outside the published index.
    start = [1] * 12
    assert tb.value(start) == tb.values(np.array([start]))[0]


def test_every_integer_dtype_and_layout_gives_the_same_values(random_large, rules, tables):
    boards, values, moves = random_large
    tb = mancala_tb.Oware(tables, rules=rules)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32, np.uint64):
        np.testing.assert_array_equal(tb.values(boards.astype(dtype)), values)
    np.testing.assert_array_equal(tb.values(boards.astype(">i4")), values)
    np.testing.assert_array_equal(tb.values(np.asfortranarray(boards)), values)
    np.testing.assert_array_equal(tb.values(boards[::3]), values[::3])
    np.testing.assert_array_equal(tb.move_values(boards[1::2].astype(np.int64)), moves[1::2])
    np.testing.assert_array_equal(tb.values(boards[:5].tolist()), values[:5])
    assert tb.values(np.zeros((0, 12), dtype=np.uint8)).shape == (0,)
    assert tb.move_values(np.zeros((0, 12), dtype=np.uint8)).shape == (0, 6)


def test_distances_equal_the_binary(random_large, rules, tables):
    boards, _, _ = random_large
    tb = mancala_tb.Oware(tables, rules=rules)
    got = tb.distances(boards)
    assert got.dtype == np.int16 and got.shape == (len(boards),)
    answers = probe_json("oware", ["--rules", rules, "--dir", str(tables)], boards)
    np.testing.assert_array_equal(got, [a["distance"] for a in answers])
    assert tb.distances(np.zeros((0, 12), dtype=np.uint8)).shape == (0,)


def test_distances_without_their_table_name_the_command(rules, tables, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(tables, copy)
    (copy / f"oware-{rules}" / "distance.12.mtb").unlink()
    tb = mancala_tb.Oware(copy, rules=rules)
    assert tb.distances(np.array([[1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0]])).shape == (1,)
    with pytest.raises(mancala_tb.MissingTableError, match="build oware"):
        tb.distances(np.array([[3, 2, 1, 1, 0, 0, 1, 1, 2, 1, 0, 0]], dtype=np.uint8))


def test_values_are_the_stored_entries(rules, tables, tmp_path):
    """Layer 12 re-imported with every value negated (checksums kept): the
    values are the stored entries, as the binary's `probe --json` reads
    them, not the best of the moves."""
    copy = tmp_path / "copy"
    shutil.copytree(tables, copy)
    folder = copy / f"oware-{rules}"
    published = tmp_path / f"scores.{OWARE_SEEDS}"
    run("export", "oware", "--rules", rules, "--seeds", str(OWARE_SEEDS), "--out",
        str(published), "--dir", str(copy))
    negated = -np.frombuffer(published.read_bytes(), dtype=np.int8)
    published.write_bytes(negated.astype(np.int8).tobytes())
    for name in (f"scores.{OWARE_SEEDS}.mtb", f"distance.{OWARE_SEEDS}.mtb"):
        (folder / name).unlink()
    run("import", "oware", "--rules", rules, "--seeds", str(OWARE_SEEDS), "--dir", str(copy),
        str(published))
    boards = random_positions(np.random.default_rng(3), OWARE_SEEDS, 12, 1000)
    indexed = boards[(boards[:, 6:] == 0).any(axis=1)]
    original = mancala_tb.Oware(tables, rules=rules).values(indexed)
    tb = mancala_tb.Oware(copy, rules=rules)
    np.testing.assert_array_equal(tb.values(indexed), -original)
    assert tb.value(indexed[0]) == -original[0]
    answers = probe_json("oware", ["--rules", rules, "--dir", str(copy)], indexed)
    np.testing.assert_array_equal(tb.values(indexed), [a["value"] for a in answers])
