"""Go's real sort.Slice beyond insertion sort (profiles.md 3.3, O3/O4 of
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
