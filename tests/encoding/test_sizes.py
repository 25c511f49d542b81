"""sizes.lp on its own: the size-range check (Z3), its reason (Z4) and the
distance (Z5), every row of the Z3 and Z5 tables; with ordering.lp, the
distance a qualifying runtime's rank key carries (O3).

Upstream, given as facts: evaluated/2 (lookup.lp), examined/2
(compatibility.lp: the runtimes that support the model; explanation.lp: every
candidate) and runtime/1 (admission.lp). Counts are
`ome_asp.input.sizes.parse_size` of the strings (Z1, Z2) and enter only as exact
numbers (val/2). The per-runtime and per-size facts are computed here the way
ome_asp/solver/facts.py computes them: a range with both bounds gets
runtime_range_width(max - min); a range with one bound gets
size_gap(size, bound, |bound - size|) (Z5). sizes.lp gives the distance per
runtime (runtime_distance/2) where it does not depend on the size, else per
(size, runtime) (sized_distance/3), never per (query, runtime) pair: ordering.lp
takes the query's from these. The tests with ordering.lp give its other
upstream as facts: failed/2 (qualification.lp), query_view/2 and view_score/3
(scoring.lp).
"""

import clingo
import pytest

from ome_asp.input.sizes import parse_size
from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import SCOPES, run, scoped, term, text

FILES = ("sizes.lp",)
UPSTREAM = ("evaluated/2", "examined/2", "runtime/1")
#: ordering.lp's upstream besides sizes.lp's predicates.
ORDERING_UPSTREAM = UPSTREAM + ("failed/2", "query_view/2", "view_score/3") + SCOPES

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')
NO_RANGE = "no range"  # the runtime has no modelSizeRange


def facts(size, min_=None, max_=None, examined=True):
    """One model (size None: no modelParameterSize) and one runtime, examined
    unless told otherwise, with modelSizeRange {min, max} (None: absent; both
    NO_RANGE: no range)."""
    b = FactBuilder(schema=None)
    f, exact = b.fact, b.exact
    f.model(M)
    f.evaluated(1, M)
    f.runtime(RT)
    if examined:
        f.examined(1, RT)
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


def distances(answer):
    """Z5's distance of each runtime for the model's size (the tests' one
    sized model): the one given per runtime and the one given per size."""
    return answer.rows("runtime_distance") | {(r, d) for _size, r, d in answer.rows("sized_distance")}


def ranked(b, failed=False):
    """sizes.lp with ordering.lp: RT's score view for query 1 scores 1 (above
    0, as Q8 passed), and RT fails a check when `failed`."""
    view = const("v")
    b.fact.query_view(1, view)
    b.fact.view_score(view, RT, b.exact(1))
    b.fact.runtime_name_rank(RT, 1)
    if failed:
        b.fact.failed(1, RT)
    return run(FILES + ("ordering.lp",), scoped(b, (1,), (RT,)), upstream=ORDERING_UPSTREAM)


def key_distances(answer):
    """(query, runtime, distance) of every rank key (ordering.lp): its third
    component is the rank K of the distance, read back as the decimal D of the
    answer's val(K, D) of that rank (0 is always rank 0)."""
    decimals = {0: "0"}

    def collect(symbol):
        if symbol.match("val", 2):
            decimals[symbol.arguments[0].number] = symbol.arguments[1].string
        if symbol.type == clingo.SymbolType.Function:
            for argument in symbol.arguments:
                collect(argument)

    for symbol in answer.symbols:
        collect(symbol)
    keys = [s for s in answer.symbols if s.match("rank_key", 3)]
    return {(str(q), str(r), decimals[key.arguments[2].number]) for q, r, key in (s.arguments for s in keys)}


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


Z5_TABLE = [
    pytest.param("3.21B", NO_RANGE, None, "0", id="no-range"),
    pytest.param("3.21B", "1B", "8B", "7000000000", id="1B-8B"),
    pytest.param("3.21B", "1B", "70B", "69000000000", id="1B-70B"),
    pytest.param("3.21B", "2B", None, "1210000000", id="min-2B-only"),
    pytest.param("3.21B", None, "13B", "9790000000", id="max-13B-only"),
    pytest.param("405B", "70B", None, "335000000000", id="405B-min-70B-only"),
    pytest.param("3.21B", None, None, "0", id="empty-range"),
]


@pytest.mark.parametrize(("size", "min_", "max_", "distance"), Z5_TABLE)
def test_z5_table(size, min_, max_, distance):
    """Z5, every row (and the {} range: 0)."""
    assert distances(solve(facts(size, min_, max_))) == {(R, distance)}


@pytest.mark.parametrize(("size", "min_", "max_", "distance"), Z5_TABLE)
def test_o3_rank_key_carries_the_z5_distance(size, min_, max_, distance):
    """O3 orders by Z5's distance: the rank key of a qualifying runtime
    (ordering.lp) carries it, every row of the Z5 table."""
    assert key_distances(ranked(facts(size, min_, max_))) == {("1", R, distance)}


@pytest.mark.parametrize(
    ("min_", "max_", "case", "per_size"),
    [
        pytest.param(NO_RANGE, None, "no_range", False, id="no-range"),
        pytest.param(None, None, "no_bounds", False, id="empty-range"),
        pytest.param("2B", None, "one_bound(min)", True, id="min-only"),
        pytest.param(None, "13B", "one_bound(max)", True, id="max-only"),
        pytest.param("1B", "8B", "both_bounds", False, id="both"),
    ],
)
def test_z5_case_decides_whether_the_distance_depends_on_the_size(min_, max_, case, per_size):
    """Z5's case is the runtime's alone (distance_case/2, shown by explain -v):
    only with one bound does the distance depend on the size (|bound - s|);
    without a range, with {} and with both bounds (the width) it is given per
    runtime."""
    answer = solve(facts("3.21B", min_, max_))
    assert answer.rows("distance_case") == {(R, case)}
    assert bool(answer.rows("sized_distance")) == per_size
    assert bool(answer.rows("runtime_distance")) == (not per_size)


def test_z5_fractional_distance_stays_exact():
    """Z5, I8: distances are exact rationals."""
    answer = solve(facts("1.5", "0.25", None))
    assert answer.rows("sized_distance") == {("1.5", R, "1.25")}
    assert key_distances(ranked(facts("1.5", "0.25", None))) == {("1", R, "1.25")}


def test_z5_sized_distance_only_for_the_evaluated_models_sizes():
    """Z5 is taken for the sizes of the evaluated models only: a model no
    query evaluates adds no per-size distance."""
    b = facts("3.21B", "2B", None)
    other = term('cbm("other")')
    b.fact.model(other)
    b.fact.model_size(other, "405B", b.exact(parse_size("405B")))
    b.fact.size_gap(b.exact(parse_size("405B")), b.exact(parse_size("2B")), b.exact(403_000_000_000))
    assert solve(b).rows("sized_distance") == {("3210000000", R, "1210000000")}
    b.fact.evaluated(2, other)
    assert solve(b).rows("sized_distance") == {("3210000000", R, "1210000000"), ("405000000000", R, "403000000000")}


def test_z5_no_distance_without_a_model_size():
    """Z5: defined only for a model that sets modelParameterSize (O3 skips
    the step): the rank key's distance is 0, not the range's width, and no
    per-size distance is taken."""
    b = facts(None, "1B", "8B")
    assert distances(solve(b)) == {(R, "7000000000")}  # the runtime's, for sized models
    assert key_distances(ranked(b)) == {("1", R, "0")}
    assert solve(facts(None, "2B", None)).rows("sized_distance") == set()


def test_z5_only_for_qualifying_runtimes():
    """O3 orders qualifying runtimes only: sizes.lp's distance is per runtime,
    and a rank key (ordering.lp) carries it only for a runtime that is
    examined and failed no check."""
    assert key_distances(ranked(facts("3.21B", "1B", "8B"))) == {("1", R, "7000000000")}
    assert key_distances(ranked(facts("3.21B", "1B", "8B"), failed=True)) == set()
    assert key_distances(ranked(facts("3.21B", "1B", "8B", examined=False))) == set()


#: The arguments that carry a count (input.lp): predicate -> positions.
COUNT_ARGUMENTS = {"model_size": (2,), "runtime_size_bound": (3,), "runtime_range_width": (1,), "size_gap": (0, 1, 2)}


def test_counts_reach_clingo_only_as_exact_terms():
    """I8: counts beyond 32 bits (1.5T, 405B) decide correctly, and clingo
    never sees a raw count: every count argument is val(K, D) with K a small
    rank and D the exact decimal text; a raw count is refused by the fact
    builder."""
    b = facts("1.5T", "405B", "2T")
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
    assert distances(answer) == {(R, "1595000000000")}
    assert solve(facts("1.5T", "405B", "1T")).rows("size_outside") == {("1", R)}

    raw = FactBuilder(schema=None)
    raw.fact.model_size(M, "1.5T", counts["1.5T"])
    with pytest.raises(OverflowError):
        raw.symbols()
