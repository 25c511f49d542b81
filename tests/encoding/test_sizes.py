"""sizes.lp on its own: the size-range check (Z3), its reason (Z4) and the
distance (Z5), every row of the Z3 and Z5 tables.

Upstream, given as facts: evaluated/2 (lookup.lp), examined/2
(qualification.lp: the runtimes that support the model; explanation.lp: every
candidate) and qualifies/2 (qualification.lp). Counts are `ome_asp.sizes.parse_size` of the
strings (Z1, Z2) and enter only as exact numbers (val/2). The per-pair
facts are computed here the way ome_asp/facts.py computes them: a range with
both bounds gets runtime_range_width(max - min); a range with one bound gets
size_gap(size, bound, |bound - size|) (Z5).
"""

import clingo
import pytest

from ome_asp.facts import FactBuilder, const, runtime_id
from ome_asp.sizes import parse_size

from .lp import run, term, text

FILES = ("sizes.lp",)
UPSTREAM = ("evaluated/2", "examined/2", "qualifies/2")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')
NO_RANGE = "no range"  # the runtime has no modelSizeRange


def facts(size, min_=None, max_=None, qualifies=False, examined=True):
    """One model (size None: no modelParameterSize) and one examined runtime
    with modelSizeRange {min, max} (None: absent; both NO_RANGE: no range)."""
    b = FactBuilder()
    f, exact = b.fact, b.exact
    f.model(M)
    f.evaluated(1, M)
    if examined:
        f.examined(1, RT)
    if qualifies:
        f.qualifies(1, RT)
    if size is not None:
        f.model_size(M, size, exact(parse_size(size)))
    if min_ == NO_RANGE:
        return b
    f.runtime_size_range(RT)
    bounds = {"min": min_, "max": max_}
    for bound, written in bounds.items():
        if written is not None:
            f.runtime_size_bound(RT, const(bound), written, exact(parse_size(written)))
    if min_ is not None and max_ is not None:
        f.runtime_range_width(RT, exact(parse_size(max_) - parse_size(min_)))
    elif size is not None and (min_, max_) != (None, None):
        bound = parse_size(min_ if min_ is not None else max_)
        f.size_gap(exact(parse_size(size)), exact(bound), exact(abs(bound - parse_size(size))))
    return b


def solve(b):
    return run(FILES, b, upstream=UPSTREAM)


@pytest.mark.parametrize(
    ("min_", "max_", "size", "passes"),
    [
        pytest.param("2B", "4B", "3.21B", True, id="inside"),
        pytest.param("2B", "4B", "4B", True, id="inclusive"),
        pytest.param("2B", "4B", "2B", True, id="inclusive-min-extra"),
        pytest.param("2B", "4B", "1999999999", False, id="just-below-min-extra"),
        pytest.param("500M", "2B", "3.21B", False, id="above-max"),
        pytest.param("1B", "4B", "1500M", True, id="units-mixed"),
        pytest.param("70B", None, "405B", True, id="min-only"),
        pytest.param(None, "13B", "3.21B", True, id="max-only"),
        pytest.param("2B", "4B", None, True, id="model-without-size"),
        pytest.param("2B", "4b", "3.21B", False, id="unparseable-max-is-0"),
        pytest.param("2b", "4B", "1M", True, id="unparseable-min-is-0"),
        pytest.param("8B", "1B", "3.21B", False, id="min-above-max"),
        pytest.param(None, None, "3.21B", True, id="empty-range"),
    ],
)
def test_z3_table(min_, max_, size, passes):
    """Z3, every row (plus two "-extra" rows for the min bound)."""
    assert solve(facts(size, min_, max_)).rows("size_outside") == (set() if passes else {("1", R)})


def test_z3_only_examined_runtimes_are_checked():
    """Z3 (Q6) runs on the examined runtimes only: one that is not examined
    (it does not support the model and the program does not explain) gets
    no size reason."""
    answer = solve(facts("3.21B", "500M", "2B", examined=False))
    assert answer.rows("size_outside") == set()
    assert answer.rows("size_reason") == set()


def test_z3_runtime_without_range_passes():
    """Z3: a runtime without modelSizeRange passes every model."""
    assert solve(facts("0", NO_RANGE)).rows("size_outside") == set()


@pytest.mark.parametrize(
    ("min_", "max_", "size", "reason"),
    [
        pytest.param("500M", "2B", "3.21B", '"3.21B","500M","2B"', id="both"),
        pytest.param("70B", None, "13B", '"13B","70B",none', id="max-absent"),
        pytest.param(None, "70B", "405B", '"405B",none,"70B"', id="min-absent"),
        pytest.param("2B", "4b", "3.21B", '"3.21B","2B","4b"', id="as-written"),
        pytest.param("1B", "8B", "7b", '"7b","1B","8B"', id="unparseable-size-is-0-and-quoted"),
    ],
)
def test_z4_reason(min_, max_, size, reason):
    """Z4: the reason carries the strings as written; none marks an absent bound."""
    assert solve(facts(size, min_, max_)).rows("size_reason") == {("1", R, f"size_out_of_range({reason})")}


@pytest.mark.parametrize(
    ("size", "min_", "max_", "distance"),
    [
        pytest.param("3.21B", NO_RANGE, None, "0", id="no-range"),
        pytest.param("3.21B", "1B", "8B", "7000000000", id="1B-8B"),
        pytest.param("3.21B", "1B", "70B", "69000000000", id="1B-70B"),
        pytest.param("3.21B", "2B", None, "1210000000", id="min-2B-only"),
        pytest.param("3.21B", None, "13B", "9790000000", id="max-13B-only"),
        pytest.param("405B", "70B", None, "335000000000", id="405B-min-70B-only"),
        pytest.param("3.21B", None, None, "0", id="empty-range"),
    ],
)
def test_z5_table(size, min_, max_, distance):
    """Z5, every row (and the {} range: 0)."""
    assert solve(facts(size, min_, max_, qualifies=True)).rows("distance") == {("1", R, distance)}


def test_z5_fractional_distance_stays_exact():
    """Z5, I8: distances are exact rationals."""
    assert solve(facts("1.5", "0.25", None, qualifies=True)).rows("distance") == {("1", R, "1.25")}


def test_z5_no_distance_without_a_model_size():
    """Z5: defined only for a model that sets modelParameterSize (O3 skips)."""
    assert solve(facts(None, "1B", "8B", qualifies=True)).rows("distance") == set()


def test_z5_only_for_qualifying_runtimes():
    """sizes.lp computes the distance of qualifying runtimes only (O3 orders those)."""
    assert solve(facts("3.21B", "1B", "8B")).rows("distance") == set()


#: The arguments that carry a count (input.lp): predicate -> positions.
COUNT_ARGUMENTS = {"model_size": (2,), "runtime_size_bound": (3,), "runtime_range_width": (1,), "size_gap": (0, 1, 2)}


def test_counts_reach_clingo_only_as_exact_terms():
    """I8: counts beyond 32 bits (1.5T, 405B) decide correctly, and clingo
    never sees a raw count: every count argument is val(K, D) with K a small
    rank and D the exact decimal text; a raw count is refused by the fact
    builder."""
    b = facts("1.5T", "405B", "2T", qualifies=True)
    seen = {}
    for s in b.symbols():
        for position in COUNT_ARGUMENTS.get(s.name, ()):
            value = s.arguments[position]
            assert value.match("val", 2), s
            rank, decimal = value.arguments
            assert rank.type == clingo.SymbolType.Number and abs(rank.number) <= 4, s
            seen[decimal.string] = rank.number
    counts = {"1.5T": 1_500_000_000_000, "405B": 405_000_000_000, "2T": 2_000_000_000_000, "width": 1_595_000_000_000}
    assert set(seen) == {str(c) for c in counts.values()}
    assert [seen[str(c)] for c in sorted(counts.values())] == sorted(seen.values())  # ranks keep the order

    answer = solve(b)
    assert answer.rows("size_outside") == set()
    assert answer.rows("distance") == {("1", R, "1595000000000")}
    assert solve(facts("1.5T", "405B", "1T")).rows("size_outside") == {("1", R)}

    raw = FactBuilder()
    raw.fact.model_size(M, "1.5T", counts["1.5T"])
    with pytest.raises(OverflowError):
        raw.symbols()
