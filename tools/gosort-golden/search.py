#!/usr/bin/env python3
"""Inputs that tell ome_asp/solver/gosort.py from its mutants, for the Go
generator to sort (main.go reads them from searched-inputs.json).

Random patterns rarely reach pdqsort_func's deep steps (heapSort_func after
bits.Len(n) unbalanced partitions, a shift at the very ends of
partialInsertionSort_func): this searches random inputs until one gives a
different order under the mutant than under the emulation. The golden test
then fixes Go's real order for it, so the mutant, which cannot agree with
both, fails. A mutant that no input distinguishes within the budget is
printed (at these lengths some are equivalent: breakPatterns_func and
choosePivot_func never see fewer than 13 elements).

    python tools/gosort-golden/search.py tests/golden/gosort/searched-inputs.json
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from ome_asp.solver import gosort

SOURCE = Path(gosort.__file__).read_text()
MUTANTS = [  # (old, new): each a pdqsort_func detail the random patterns miss
    ("len(items).bit_length())", "len(items).bit_length() - 1)"),
    ("len(items).bit_length())", "len(items).bit_length() + 1)"),
    ("if i - a >= 2:", "if i - a >= 3:"),
    ("if b - i >= 2:", "if b - i >= 3:"),
    # siftDown_func, only under heapSort_func: no random input found one; the
    # adversary's inputs of tests/test_gosort_golden.py reach it and catch it
    ("if child + 1 < hi and", "if child + 1 <= hi and"),
]
BUDGET = 300.0  # seconds per mutant


def mutant(old: str, new: str):
    namespace: dict = {"__name__": "mutant"}
    exec(compile(SOURCE.replace(old, new, 1), "mutant", "exec"), namespace)
    return namespace["sort_slice"], namespace["_compare"]


def candidate(r: random.Random) -> list[tuple[str, int, float]]:
    n = r.randint(13, 60)
    shape = r.randrange(3)
    if shape == 0:  # a sawtooth: partitions stay unbalanced
        period, step = r.randint(2, 9), r.choice([0.3, 0.6, 0.9, 1.5])
        distances = [(i % period) * step for i in range(n)]
    elif shape == 1:  # few values, many ties
        distances = [r.choice([0, 0.5, 1, 1.5, 2, 2.5, 3]) for _ in range(n)]
    else:  # nearly sorted, an element moved to either end
        step = r.choice([0.3, 0.5, 0.6, 0.9, 1.5])
        distances = [i * step for i in range(n)]
        for _ in range(r.randint(1, 6)):
            moved = distances.pop(r.randrange(n))
            distances.insert(r.choice([0, 1, 2, n - 3, n - 2, n - 1, r.randrange(n)]), moved)
    return [(f"r{k:02d}", 15, d) for k, d in zip(r.sample(range(n), n), distances)]


def main() -> None:
    r, found = random.Random(0), []
    for old, new in MUTANTS:
        sort_slice, compare = mutant(old, new)
        start = time.monotonic()
        while time.monotonic() - start < BUDGET:
            items = candidate(r)
            if gosort.sort_slice(items, lambda a, b: gosort._compare(a, b, True) > 0) != sort_slice(
                    items, lambda a, b: compare(a, b, True) > 0):  # noqa: B023 (sorted here)
                found.append({"mutant": f"{old} -> {new}", "names": [i[0] for i in items],
                              "scores": [i[1] for i in items], "distances": [i[2] for i in items]})
                break
        else:
            print(f"no input tells this mutant apart: {old} -> {new}", file=sys.stderr)
    Path(sys.argv[1]).write_text(json.dumps(found) + "\n")


if __name__ == "__main__":
    main()
