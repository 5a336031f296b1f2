#!/usr/bin/env python3
"""Check that perfect play reaches its values: from COUNT random positions
of layers LOW..=HIGH, the principal variation `mancala-tb query oware
--json` gives (best moves on both sides, as `play` chooses them) is
followed to the end of the game or to a repetition, and the seeds won along
it must be the position's value (a repetition scores 0 from there, the end
of the game shares the rest out by the rules).

    scripts/check-lines.py BIN DIR RULES LOW HIGH [COUNT] [SEED]
    scripts/check-lines.py target/release/mancala-tb tablebases awari 15 20 200

Prints each failure and a summary; exits 1 if any line misses its value.
"""

import json
import random
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


def main() -> int:
    binary, folder, rules = sys.argv[1:4]
    low, high = int(sys.argv[4]), int(sys.argv[5])
    count = int(sys.argv[6]) if len(sys.argv) > 6 else 200
    rng = random.Random(int(sys.argv[7]) if len(sys.argv) > 7 else 1)
    failures = 0
    longest = 0
    for _ in range(count):
        board = random_board(rng, rng.randint(low, high))
        out = subprocess.run(
            [binary, "query", "oware", "--rules", rules, "--dir", folder, "--json",
             "--pv-limit", "100000", *map(str, board)],
            capture_output=True, text=True, check=True,
        ).stdout
        answer = json.loads(out)
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
    print(f"{rules} layers {low}..={high}: {count} random positions, {failures} lines "
          f"that miss their value; the longest line {longest} moves")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
