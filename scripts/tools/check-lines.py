#!/usr/bin/env python3
"""Check that perfect play reaches its values: from COUNT random positions
of layers LOW..=HIGH, the principal variation `mancala-tb query oware
--json` gives (best moves on both sides, as `play` chooses them) is
followed to the end of the game or to a repetition, and the seeds won along
it must be the position's value (a repetition scores 0 from there, the end
of the game shares the rest out by the rules).

With --play, `mancala-tb play oware --side second` is played out instead:
the computer moves first from each position, and the person's moves are the
first moves of `query`'s principal variations, so perfect play meets
perfect play; the computer's captures less the person's at the end (or at
the repetition) must be the position's value.

    scripts/tools/check-lines.py [--play] BIN DIR RULES LOW HIGH [COUNT] [SEED]
    scripts/tools/check-lines.py target/release/mancala-tb tablebases awari 15 20 200

Prints each failure and a summary; exits 1 if any line misses its value.
"""

import json
import random
import re
import subprocess
import sys


def random_board(rng: random.Random, seeds: int) -> list:
    """A board of `seeds` seeds, uniform over the 12-pit compositions."""
    bars = sorted(rng.sample(range(seeds + 11), 11))
    edges = [-1, *bars, seeds + 11]
    return [b - a - 1 for a, b in zip(edges, edges[1:])]


def no_move_value(rules: str, board: list) -> int:
    """The mover's share of the seeds left when it cannot move (docs/rules.md)."""
    n = sum(board)
    return n if rules == "abapa" and sum(board[:6]) > 0 else -n


def query(binary: str, folder: str, rules: str, board: list, pv_limit: int) -> dict:
    """`query oware --json` of a board."""
    out = subprocess.run(
        [binary, "query", "oware", "--rules", rules, "--dir", folder, "--json",
         "--pv-limit", str(pv_limit), *map(str, board)],
        capture_output=True, text=True, check=True,
    ).stdout
    return json.loads(out)


def play_out(binary: str, folder: str, rules: str, board: list) -> tuple:
    """Plays `play oware --side second` from `board` to its end, the person
    answering with `query`'s best moves. Returns the computer's captures
    less the person's, and the number of moves."""
    game = subprocess.Popen(
        [binary, "play", "oware", "--rules", rules, "--dir", folder, "--side", "second",
         *map(str, board)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=0,
    )
    moves = 0
    text = ""
    while True:
        char = game.stdout.read(1)
        if not char:
            break
        text += char
        if text.endswith(": ") and re.search(r"your move \[[0-9, ]*\]: $", text):
            step = query(binary, folder, rules, board, 1)["pv"][0]
            game.stdin.write(f"{step['pit']}\n")
            board = step["board"]
            moves += 1
            text = ""
        elif text.endswith("\n"):
            played = re.match(r"computer plays pit (\d+)", text)
            if played:
                answer = query(binary, folder, rules, board, 0)
                board = next(m for m in answer["moves"] if m["pit"] == int(played[1]))["child"]
                moves += 1
            final = re.search(r"Final: you (\d+), computer (\d+)", text)
            if final:
                captured = [int(final[1]), int(final[2])]
            elif text.startswith("captured: "):
                captured = [int(n) for n in re.findall(r"you (\d+), computer (\d+)", text)[0]]
            if "game over" in text or "the position repeats" in text:
                game.stdin.close()
                game.wait()
                return captured[1] - captured[0], moves
            text = ""
    raise RuntimeError(f"play ended early from {board}: {text!r}")


def main() -> int:
    args = sys.argv[1:]
    playing = args[:1] == ["--play"]
    args = args[1:] if playing else args
    binary, folder, rules = args[0:3]
    low, high = int(args[3]), int(args[4])
    count = int(args[5]) if len(args) > 5 else 200
    rng = random.Random(int(args[6]) if len(args) > 6 else 1)
    failures = 0
    longest = 0
    for _ in range(count):
        board = random_board(rng, rng.randint(low, high))
        answer = query(binary, folder, rules, board, 100000)
        if playing:
            won, moves = play_out(binary, folder, rules, board)
            longest = max(longest, moves)
            if won != answer["value"]:
                failures += 1
                print(f"{board}: value {answer['value']:+}, play wins {won:+} ({moves} moves)")
            continue
        pv = answer["pv"]
        won = [0, 0]
        for i, step in enumerate(pv):
            won[i % 2] += step["captured"]
        last = pv[-1]["board"] if pv else board
        seen = {tuple(board)} | {tuple(step["board"]) for step in pv[:-1]}
        repeated = bool(pv) and tuple(last) in seen
        if not repeated:
            # The line ends the game: the player to move at the end takes
            # its share of what is left.
            rest = no_move_value(rules, last)
            stuck = len(pv) % 2
            won[stuck if rest >= 0 else 1 - stuck] += abs(rest)
        longest = max(longest, len(pv))
        if won[0] - won[1] != answer["value"]:
            failures += 1
            print(f"{board}: value {answer['value']:+}, the line wins {won[0] - won[1]:+} "
                  f"({len(pv)} moves, {'repeats' if repeated else 'ends'})")
    what = "games of play" if playing else "lines"
    print(f"{rules} layers {low}..={high}: {count} random positions, {failures} {what} "
          f"that miss their value; the longest {longest} moves")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
