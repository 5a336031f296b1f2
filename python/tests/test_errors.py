"""Errors by cause: ValueError naming the row, MissingTableError naming the
build command, DamagedTableError; TypeError for arrays that are not of
integers."""

import shutil

import numpy as np
import pytest

import mancala_tb
from conftest import OWARE_SEEDS, compositions


def board(seeds: int) -> list:
    return [seeds] + [0] * 11


def test_malformed_boards_are_value_errors_naming_the_row(tables):
    tb = mancala_tb.Oware(tables)
    boards = np.zeros((4, 12), dtype=np.int64)
    boards[2, 5] = -1
    with pytest.raises(ValueError, match=r"^row 2: pit 5 holds -1 seeds"):
        tb.values(boards)
    boards[2, 5] = 300
    with pytest.raises(ValueError, match=r"^row 2: pit 5 holds 300 seeds"):
        tb.values(boards)
    boards[2, 5] = 49
    with pytest.raises(ValueError, match=r"^row 2: an Oware position holds at most 48 seeds"):
        tb.move_values(boards.astype(np.uint8))
    with pytest.raises(ValueError, match=r"shape \(N, 12\), one position a row; got \(3, 11\)"):
        tb.values(np.zeros((3, 11), dtype=np.uint8))
    with pytest.raises(ValueError, match=r"got \(12,\)$"):
        tb.values(np.zeros(12, dtype=np.uint8))
    with pytest.raises(TypeError, match="integer array, got dtype float64"):
        tb.values(np.zeros((3, 12)))
    with pytest.raises(ValueError, match="12 pits"):
        tb.value([1] * 11)
    with pytest.raises(ValueError, match="pit 3 holds -2 seeds"):
        tb.value([0, 0, 0, -2] + [0] * 8)
    with pytest.raises(ValueError, match="unknown Oware ruleset 'oware'"):
        mancala_tb.Oware(tables, rules="oware")


def test_relay_games_refuse_their_malformed_boards(tables):
    omweso = mancala_tb.Omweso(tables, 2)
    with pytest.raises(ValueError, match=r"shape \(N, 8\)"):
        omweso.values(np.zeros((1, 12), dtype=np.uint8))
    with pytest.raises(ValueError, match="8 pits"):
        omweso.value([2] * 7)
    with pytest.raises(ValueError, match="board width 9"):
        mancala_tb.Omweso(tables, 9)
    with pytest.raises(ValueError, match="unknown value `sideways` for reverse"):
        mancala_tb.Omweso(tables, 2, reverse="sideways")
    with pytest.raises(ValueError, match="unknown Omweso objective"):
        mancala_tb.Omweso(tables, 2, objective="score")
    engehe = mancala_tb.EnGehe(tables, 2)
    boards = np.zeros((3, 4), dtype=np.uint8)
    boards[1] = [100, 20, 7, 1]
    with pytest.raises(ValueError, match="^row 1: the position holds 128 counters"):
        engehe.values(boards)
    with pytest.raises(ValueError, match="unknown value `forever` for endless"):
        mancala_tb.EnGehe(tables, 2, endless="forever")


def test_a_layer_not_built_names_the_build_command(tables, tmp_path):
    tb = mancala_tb.Oware(tables, rules="abapa")
    boards = np.array([board(3), board(OWARE_SEEDS + 1), board(5)])
    command = f"mancala-tb build oware --rules abapa --max-seeds {OWARE_SEEDS + 1} --dir {tables}"
    for probe in (tb.values, tb.move_values, lambda b: tb.value(b[1])):
        with pytest.raises(mancala_tb.MissingTableError) as error:
            probe(boards)
        assert str(error.value).endswith(f"build it with `{command}`")
        assert error.value.build_command == command
        assert error.value.path == tables / "oware-abapa" / f"scores.{OWARE_SEEDS + 1}.mtb"
    assert str(error.value).startswith("layer 13")
    with pytest.raises(mancala_tb.MissingTableError, match="^row 1: layer 13"):
        tb.values(boards)
    # Nothing is opened before the first probe: an empty folder is no error yet.
    empty = mancala_tb.Oware(tmp_path)
    with pytest.raises(mancala_tb.TableError, match="--max-seeds 0 "):
        empty.values(np.zeros((1, 12), dtype=np.uint8))


def test_relay_tables_not_built_name_their_build_command(tables):
    omweso = mancala_tb.Omweso(tables, 2, objective="points")
    boards = np.array([[2, 2, 0, 0, 2, 0, 0, 0], [2, 2, 1, 0, 2, 0, 0, 0]])
    with pytest.raises(mancala_tb.MissingTableError, match="^row 1: ") as error:
        omweso.values(boards)
    assert error.value.build_command == (
        f"mancala-tb build omweso --width 2 --seeds 7 --objective points --reverse all-laps "
        f"--endless void --okutema on --dir {tables}"
    )
    engehe = mancala_tb.EnGehe(tables, 2, endless="illegal")
    with pytest.raises(mancala_tb.MissingTableError, match="engehe --width 2 --endless illegal"):
        engehe.value([1, 0, 0, 1])


def damaged_copy(tables, tmp_path, seeds: int, damage) -> mancala_tb.Oware:
    """The awari tables with layer `seeds`'s file damaged by `damage`."""
    copy = tmp_path / "tb"
    shutil.copytree(tables / "oware-awari", copy / "oware-awari")
    damage(copy / "oware-awari" / f"scores.{seeds}.mtb")
    return mancala_tb.Oware(copy)


def flip_middle(path):
    data = bytearray(path.read_bytes())
    for i in range(len(data) // 2, len(data) // 2 + 64):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))


def truncate(path):
    path.write_bytes(path.read_bytes()[:100])


@pytest.mark.parametrize("damage", [flip_middle, truncate])
def test_a_damaged_table_is_a_damaged_table_error(tables, tmp_path, damage):
    tb = damaged_copy(tables, tmp_path, 9, damage)
    every = np.array(list(compositions(9, 12)), dtype=np.uint8)
    with pytest.raises(mancala_tb.DamagedTableError, match="scores.9.mtb"):
        tb.values(every)
    assert issubclass(mancala_tb.DamagedTableError, mancala_tb.TableError)
