"""Go's real sort.Slice beyond insertion sort (docs/profiles.md 3.3, O3/O4 of
code-v0.1.5): golden vectors written by the Go standard library itself
(tools/gosort-golden; its doc comment says how to regenerate them) for 13
to 60 elements under the comparator of profile code-v0.1.5, which is not a
weak order, so every comparison pdqsort_func makes shows in the result.
The emulation in ome_asp/solver/gosort.py must give Go's order on every
vector: a changed pdqsort constant or step fails here (the patterns reach
most steps; searched.json holds inputs found for the deep ones)."""

import json
from pathlib import Path

import pytest

from ome_asp.solver import gosort

VECTORS = sorted((Path(__file__).resolve().parent / "golden" / "gosort").glob("*.json"))
PATTERNS = ["chain-ascending", "chain-descending", "chain-shuffled", "descending-noisy", "few-values",
            "nearly-ascending", "organ-pipe", "random"]


def vectors(name: str) -> dict:
    return json.loads((VECTORS[0].parent / f"{name}.json").read_text())


def test_the_vectors_are_there():
    """A lost file must not pass as zero vectors checked."""
    assert sorted(path.stem for path in VECTORS) == sorted([*PATTERNS, "searched", "searched-inputs"])
    assert {case["mutant"] for case in vectors("searched")["cases"]} == {
        case["mutant"] for case in vectors("searched-inputs")}


def go_order(case: dict) -> tuple[list, list]:
    items = list(zip(case["names"], case["scores"], case["distances"]))
    ours = gosort.sort_slice(items, lambda a, b: gosort._compare(a, b, sized=True) > 0)
    return ours, [items[i] for i in case["sorted"]]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_O3_O4_sort_slice_is_go_s_sort_slice(pattern):
    file = vectors(pattern)
    assert file["go"].startswith("go1.25")  # OME v0.1.5's go.mod; gosort.py emulates that release
    for case in file["cases"]:
        ours, go = go_order(case)
        assert ours == go, f"{pattern} seed {case['seed']}"
    assert {len(case["names"]) for case in file["cases"]} == set(range(13, 61))


def test_O3_O4_sort_slice_is_go_s_sort_slice_on_the_searched_inputs():
    """heapSort_func's limit and the ends of partialInsertionSort_func's shifts,
    which random patterns of 13-60 elements almost never reach."""
    for case in vectors("searched")["cases"]:
        ours, go = go_order(case)
        assert ours == go, case["mutant"]


def adversary(n: int) -> list[int]:
    """McIlroy's adversary ("A killer adversary for quicksort", 1999) against
    sort_slice: values fixed lazily, as comparisons need them, so that every
    partition is as unbalanced as the sort's own steps allow; the values it
    settles on are an input that drives pdqsort_func the same way again."""
    gas, solid, candidate = n, [0], [-1]
    values = [gas] * n

    def compare(x: int, y: int) -> int:
        if values[x] == gas and values[y] == gas:
            z = x if x == candidate[0] else y
            values[z], solid[0] = solid[0], solid[0] + 1
        if values[x] == gas:
            candidate[0] = x
        elif values[y] == gas:
            candidate[0] = y
        return values[x] - values[y]

    gosort.sort_slice(list(range(n)), lambda x, y: compare(x, y) < 0)
    unfixed = iter(range(n, 2 * n))  # never compared with each other: any distinct values above the fixed ones
    return [v if v != gas else next(unfixed) for v in values]


def test_O3_O4_heap_sort_on_an_adversary_s_input(monkeypatch):
    """heapSort_func and siftDown_func, which no vector above reaches: the
    adversary's inputs of 36-49 runtimes exhaust pdqsort_func's limit. Their
    scores are distinct, so the comparator is a strict total order there and
    Go's sort.Slice, whatever its algorithm, returns them by descending score:
    no golden vector is needed to know the answer. A changed bound of
    siftDown_func's children (child + 1 <= hi) or of heapSort_func's
    extraction fails here."""
    heaps = []
    original = gosort._Slice.heap_sort
    monkeypatch.setattr(gosort._Slice, "heap_sort", lambda data, a, b: heaps.append(b - a) or original(data, a, b))
    for n in range(36, 50):
        items = [(f"r{k:02d}", 1000 - value, 0.0) for k, value in enumerate(adversary(n))]
        heaps.clear()
        ours = gosort.sort_slice(items, lambda a, b: gosort._compare(a, b, sized=True) > 0)
        assert heaps, n  # the input reaches heapSort_func
        assert ours == sorted(items, key=lambda item: -item[1]), n
