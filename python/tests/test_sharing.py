"""One object from several threads at once, and pickled (as a multi-process
data loader hands it to its workers)."""

import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import mancala_tb
from conftest import OWARE_SEEDS, random_positions


def batches(count: int, size: int) -> list:
    rng = np.random.default_rng(5)
    return [
        random_positions(rng, int(rng.integers(0, OWARE_SEEDS + 1)), 12, size)
        for _ in range(count)
    ]


def test_one_object_answers_several_threads_at_once(tables):
    work = batches(32, 500)
    expected = [mancala_tb.Oware(tables).values(b) for b in work]
    # A fresh object: the threads also race to open the tables.
    tb = mancala_tb.Oware(tables)
    with ThreadPoolExecutor(max_workers=8) as pool:
        values = list(pool.map(tb.values, work))
        moves = list(pool.map(tb.move_values, work))
    for got, want in zip(values, expected):
        np.testing.assert_array_equal(got, want)
    reference = mancala_tb.Oware(tables)
    for got, b in zip(moves, work):
        np.testing.assert_array_equal(got, reference.move_values(b))
    omweso = mancala_tb.Omweso(tables, 2, objective="points")
    boards = np.array([[2, 1, 0, 0, 1, 0, 0, 1], [0, 2, 2, 0, 1, 1, 0, 0]] * 50)
    with ThreadPoolExecutor(max_workers=4) as pool:
        for got in pool.map(omweso.values, [boards] * 16):
            np.testing.assert_array_equal(got, omweso.values(boards))


def test_objects_pickle_and_reopen_from_their_folder(tables):
    boards = batches(1, 2000)[0]
    tb = mancala_tb.Oware(tables, rules="abapa")
    before = pickle.loads(pickle.dumps(tb))  # never opened
    want = tb.values(boards)
    after = pickle.loads(pickle.dumps(tb))
    for copy in (before, after):
        assert isinstance(copy, mancala_tb.Oware) and copy.rules == "abapa"
        assert copy.dir == tables
        np.testing.assert_array_equal(copy.values(boards), want)
    omweso = mancala_tb.Omweso(tables, 2, objective="points", reverse="all-laps", okutema=True)
    copy = pickle.loads(pickle.dumps(omweso))
    assert repr(copy) == repr(omweso)
    position = [2, 1, 0, 0, 1, 0, 0, 1]
    assert copy.value(position) == omweso.value(position)
    engehe = mancala_tb.EnGehe(tables, 2)
    copy = pickle.loads(pickle.dumps(engehe))
    assert repr(copy) == repr(engehe)
    assert copy.value([1, 2, 0, 3]) == engehe.value([1, 2, 0, 3])
