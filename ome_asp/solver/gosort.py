"""The order of profile code-v0.1.5 (docs/profiles.md 3.3): Go's comparator and
`sort.Slice` over the fetch order, per kind.

This is the one ordering that is not a `#minimize`: Go's comparator is not a
weak order (a distance difference below one parameter ties, and that tie is
not transitive: 0.6 ~ 1.2 ~ 1.8 but 0.6 < 1.8), so no cost vector gives its
result; the order depends on the input order of the sort. It is emulated
here, after the encoding, from what the encoding decided: which runtimes
qualify, their scores and their distances (the rank keys of ordering.lp and
the exact numbers behind them). docs/profiles.md explains the exemption.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ome_asp.input.objects import RuntimeRef
from ome_asp.input.timestamps import ZERO_TIME
from ome_asp.solver.facts import NAN, NEG_INF, POS_INF, Facts

if TYPE_CHECKING:  # answer.py imports this module
    from ome_asp.solver.answer import QueryAnswer

INT64_MIN, INT64_END = -(2**63), 2**63  # int(d) is defined for trunc(d) in [INT64_MIN, INT64_END)
ORDER_UNSPECIFIED = "order-unspecified"
_MAX_INSERTION = 12  # pdqsort_func sorts at most 12 elements by insertion sort
_SHORTEST_NINTHER = 50  # choosePivot_func: Tukey's ninther from 50 elements on
_MAX_SWAPS = 4 * 3  # choosePivot_func: every comparison swapped, a decreasing run
_MAX_STEPS, _SHORTEST_SHIFTING = 5, 50  # partialInsertionSort_func
_INCREASING, _DECREASING, _UNKNOWN = "increasing", "decreasing", "unknown"
_UINT64 = 2**64 - 1


def _distance_value(text: str | None) -> float | None:
    """The float64 a distance's exact decimal stands for (finite ones are
    dyadic, so the conversion is exact)."""
    if text is None:
        return None
    return {POS_INF: math.inf, NEG_INF: -math.inf, NAN: math.nan}.get(text) or float(Fraction(text))


def _created_key(instant: int | None) -> int:
    """Newest first (Time.After), to the nanosecond: an absent timestamp is
    Go's zero time and Time.Equal to a written 0001-01-01T00:00:00Z (D-31)."""
    return -(ZERO_TIME if instant is None else instant)


class _Unspecified(Exception):
    """Go's result is not determined by the input (docs/profiles.md 3.3)."""


def _compare(a: tuple, b: tuple, sized: bool) -> int:
    """CompareRuntimes (docs/profiles.md 3.3) on (name, score, distance) tuples of
    one kind (so its IsCluster step never decides). `int(r1.Score -
    r2.Score)` is exact: both scores are positive int64s. `int(r2SizeScore -
    r1SizeScore)` truncates toward zero, so a difference below one parameter
    ends the comparison at 0 without the name step; for a NaN difference, or
    one whose truncation int64 cannot hold, Go's spec leaves the result to
    the implementation (amd64 and arm64 give different ints): _Unspecified."""
    (a_name, a_score, a_distance), (b_name, b_score, b_distance) = a, b
    if a_score != b_score:
        return a_score - b_score
    if sized and a_distance != b_distance:  # NaN != NaN, as in Go
        difference = b_distance - a_distance
        if not math.isfinite(difference) or not INT64_MIN <= math.trunc(difference) < INT64_END:
            raise _Unspecified(f"Go converts the distance difference {difference!r} of {b_name} and {a_name} "
                               "to an int, whose value Go leaves to the implementation")
        return math.trunc(difference)
    return 1 if a_name < b_name else -1 if a_name > b_name else 0


class _Slice:
    """Go's sort.Slice (Go 1.25, OME v0.1.5's go.mod): pdqsort_func over the
    slice with `less`, from the functions of sort/zsortfunc.go, each named
    after its Go counterpart. Nothing in it is random: breakPatterns_func's
    xorshift is seeded with the length, so the result is a function of the
    input order and of `less`, whatever `less` is."""

    def __init__(self, items: list, less: Callable[[Any, Any], bool]) -> None:
        self.data, self._less = items, less

    def less(self, i: int, j: int) -> bool:
        return self._less(self.data[i], self.data[j])

    def swap(self, i: int, j: int) -> None:
        self.data[i], self.data[j] = self.data[j], self.data[i]

    def insertion_sort(self, a: int, b: int) -> None:
        """insertionSort_func: move each element left while it is less than its neighbour."""
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        """siftDown_func: the heap property on data[lo:hi], rooted at `first`."""
        root = lo
        while (child := 2 * root + 1) < hi:
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        """heapSort_func: after too many unbalanced partitions."""
        hi = b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, a)
        for i in range(hi - 1, -1, -1):
            self.swap(a, a + i)
            self.sift_down(0, i, a)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        """pdqsort_func: pattern-defeating quicksort of data[a:b]."""
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot, hint = (b - 1) - (pivot - a), _INCREASING
            if was_balanced and was_partitioned and hint == _INCREASING and self.partial_insertion_sort(a, b):
                return
            if a > 0 and not self.less(a - 1, pivot):  # data[a-1], an earlier pivot, is not less: equal ones
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left, right, threshold = mid - a, b - mid, length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        """partition_func: data[a:b] around the pivot, which ends at the
        returned index; True when nothing had to move."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        """partitionEqual_func: the elements equal to the pivot first."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        """partialInsertionSort_func: fix up to five adjacent inversions of a
        nearly sorted slice of 50 or more; True if it ends sorted. Its
        leftward shift runs down to index 1 of the whole slice, as Go's does."""
        i = a + 1
        for _ in range(_MAX_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHORTEST_SHIFTING:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        """breakPatterns_func: three swaps around the middle, with positions
        from an xorshift generator seeded with the length (the 64-bit shifts
        13, 7, 17 of Go's fix of golang/go#70144; docs/profiles.md), masked
        to the next power of two."""
        length = b - a
        if length < 8:
            return
        state, modulus = length, 1 << length.bit_length()
        middle = a + (length // 4) * 2
        for idx in range(middle - 1, middle + 2):
            state ^= (state << 13) & _UINT64
            state ^= state >> 7
            state ^= (state << 17) & _UINT64
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, str]:
        """choosePivot_func: a fixed pivot below 8 elements, the median of
        three below 50, Tukey's ninther from 50; the swaps counted give the hint."""
        length, swaps = b - a, [0]
        i, j, k = a + length // 4 * 1, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= _SHORTEST_NINTHER:
                i, j, k = (self.median(x - 1, x, x + 1, swaps) for x in (i, j, k))  # medianAdjacent_func
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        return j, _DECREASING if swaps[0] == _MAX_SWAPS else _UNKNOWN

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        """median_func, with order2_func's swap count."""
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1


def sort_slice(items: list, less: Callable[[Any, Any], bool]) -> list:
    """Go's sort.Slice(items, less) as a new list: pdqsort_func with the
    limit bits.Len(len(items)). For a `less` that is a strict weak order this
    is a sorted permutation like any sort's; for another `less` (Go's
    comparator of this profile) it is Go's own result over this input order."""
    data = _Slice(list(items), less)
    data.pdqsort(0, len(items), len(items).bit_length())
    return data.data


def order(answer: QueryAnswer, facts: Facts) -> list[RuntimeRef] | tuple[str, str]:
    """The ranking of one query (decoded verdicts): per kind, the fetch order
    (FetchRuntimes' sort: newest creationTimestamp first, then name -- a
    strict total order, so its result does not depend on the order the
    informer lists the runtimes in), then sortMatches' sort.Slice over the
    qualifying runtimes in that order; ServingRuntimes first. The outcome
    ("order-unspecified", detail) only where Go's result is not a function
    of the input: a comparison the sort makes converts a distance
    difference Go's spec leaves to the implementation (_compare)."""
    ranking: list[RuntimeRef] = []
    for kind, label in ((True, "ServingRuntimes"), (False, "ClusterServingRuntimes")):
        runtimes = [r for r in answer.ranking if r.namespaced == kind]
        items = {
            r: (r.name, answer.verdicts[r].score, _distance_value(answer.verdicts[r].distance) if answer.sized else None)
            for r in runtimes
        }
        fetched = sorted(runtimes, key=lambda r: (_created_key(facts.created.get(r)), r.name))
        try:
            ranking += sort_slice(fetched, lambda a, b: _compare(items[a], items[b], answer.sized) > 0)  # noqa: B023 (sorted here)
        except _Unspecified as why:
            return ORDER_UNSPECIFIED, f"qualifying {label}: {why}"
    return ranking


def wins_without_names(answer: QueryAnswer, want: RuntimeRef) -> bool:
    """Whether Go's comparator puts `want` before every other qualifying
    runtime of its kind before its name step: on score, or on a distance
    difference of at least one (3.3). Then no name and no creationTimestamp
    (the fetch order) decides its place: steer's robust sets under this
    profile (docs/design.md, "Searches under Go's order")."""
    def item(r: RuntimeRef) -> tuple:  # the name left out: the step is never reached
        return "", answer.verdicts[r].score, _distance_value(answer.verdicts[r].distance) if answer.sized else None

    try:
        return all(_compare(item(want), item(r), answer.sized) > 0
                   for r in answer.ranking if r != want and r.namespaced == want.namespaced)
    except _Unspecified:
        return False
