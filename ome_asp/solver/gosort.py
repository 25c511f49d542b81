"""The order of profile code-v0.1.5 (profiles.md 3.3): Go's comparator and
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
from datetime import datetime
from fractions import Fraction

from ome_asp.solver.facts import NAN, NEG_INF, POS_INF, Facts, RuntimeRef

INSERTION_SORT_MAX = 12  # Go's pdqsort sorts at most 12 elements by insertion sort
INT64 = 2**63  # Go converts the float difference to int: outside int64 the result is undefined
ORDER_UNSPECIFIED = "order-unspecified"


def _distance_value(text: str | None) -> float | None:
    """The float64 a distance's exact decimal stands for (finite ones are
    dyadic, so the conversion is exact)."""
    if text is None:
        return None
    return {POS_INF: math.inf, NEG_INF: -math.inf, NAN: math.nan}.get(text) or float(Fraction(text))


def _created_key(text: str | None) -> float:
    """Newest first: the negated POSIX time; objects without a timestamp are
    Go's zero time, older than any (docs/decisions.md D-31)."""
    if text is None:
        return math.inf
    return -datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class _Unspecified(Exception):
    """Go's result is not determined (profiles.md 3.3, decision OQ-30)."""


def _compare(a: tuple, b: tuple, sized: bool) -> int:
    """cmp(a, b) of profiles.md 3.3 on (name, score, distance) tuples."""
    (a_name, a_score, a_distance), (b_name, b_score, b_distance) = a, b
    if a_score != b_score:
        return a_score - b_score
    if sized and a_distance != b_distance:
        difference = b_distance - a_distance
        if not math.isfinite(difference) or abs(difference) >= INT64:
            raise _Unspecified("a distance difference Go cannot convert to an integer")
        return math.trunc(difference)  # 0 below one parameter: the name step is not reached
    return 1 if a_name < b_name else -1 if a_name > b_name else 0


def insertion_sort(items: list, less) -> list:
    """Go's insertionSortLessFunc: for i = 1..n-1 move element i left while
    it is less than its left neighbour."""
    items = list(items)
    for i in range(1, len(items)):
        j = i
        while j > 0 and less(items[j], items[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            j -= 1
    return items


def order(answer, facts: Facts) -> list[RuntimeRef] | tuple[str, str]:
    """The ranking of one query (decoded verdicts), or the outcome
    ("order-unspecified", detail) naming the kind whose order Go leaves open."""
    ranking: list[RuntimeRef] = []
    for kind, label in ((True, "ServingRuntimes"), (False, "ClusterServingRuntimes")):
        runtimes = [r for r in answer.ranking if r.namespaced == kind]
        if len(runtimes) > INSERTION_SORT_MAX:
            return ORDER_UNSPECIFIED, f"{len(runtimes)} qualifying {label}: Go's sort.Slice order is unspecified beyond {INSERTION_SORT_MAX}"
        verdicts = {r: answer.verdicts[r] for r in runtimes}
        items = {
            r: (r.name, verdicts[r].score, _distance_value(verdicts[r].distance) if answer.sized else None)
            for r in runtimes
        }
        if answer.sized and any(math.isnan(item[2]) for item in items.values()):
            return ORDER_UNSPECIFIED, f"a NaN distance among the qualifying {label}: Go's order is unspecified"
        fetched = sorted(runtimes, key=lambda r: (_created_key(facts.created.get(r)), r.name))
        try:
            ranking += insertion_sort(fetched, lambda a, b: _compare(items[a], items[b], answer.sized) > 0)
        except _Unspecified as why:
            return ORDER_UNSPECIFIED, f"{why} among the qualifying {label}"
    return ranking

