"""ordering.lp and selection.lp: the order O1-O4 as one cost vector per
qualifying runtime (rank_key/3, ordering.lp), the #minimize levels that
select the first runtime of the order (O5, selection.lp), uniqueness of the
optimum.

A runtime qualifies when it is examined and fails no check. Upstream, given
as facts: examined/2 (compatibility.lp, explanation.lp), failed/2
(qualification.lp), query_view/2 and view_score/3 (scoring.lp: the query's
score view and the runtimes' scores for it, all above 0 here as Q8 passed),
sized_query/3, runtime_distance/2 and sized_distance/3 (sizes.lp: the
distance given per runtime, or per (model size, runtime) for a one-bounded
range), runtime/1 (admission.lp); runtime_name_rank/2 is an input fact (the
rank of metadata.name in code-point order, computed here the way the fact
builder does: sorted distinct names, from 1).

The full order is read by its definition (`successive_optima`: the winner,
then the winner of the rest, ...), and the rank keys are checked to sort the
same way.
"""

import pytest

from ome_asp.solver.facts import FactBuilder, runtime_id

from .lp import SCOPES, optimal_models, optimum, run, scoped, successive_optima, term, text

KEYS = ("ordering.lp",)
FILES = ("ordering.lp", "selection.lp")
UPSTREAM = (
    "examined/2", "failed/2", "query_view/2", "view_score/3",
    "sized_query/3", "runtime_distance/2", "sized_distance/3", "runtime/1",
) + SCOPES

B = 10**9
SIZE = 3_210_000_000
#: The score view of the queries' model (any term does).
VIEW = term('view("safetensors",none,set,"transformers",none)')
# O7: (name, score, distance); all ClusterServingRuntimes, model 3.21B; a-min2
# is one-bounded, so its distance is given for the size (ONE_BOUNDED).
ONE_BOUNDED = {"a-min2"}
O7 = [
    ("z-top", 8, 69 * B),
    ("b-open", 6, 0),
    ("a-min2", 6, 1_210_000_000),
    ("c-1to8", 6, 7 * B),
    ("d-wide", 6, 69 * B),
]


def csr(name):
    """(identifier, metadata.name) of a ClusterServingRuntime."""
    return runtime_id("ClusterServingRuntime", None, name), name


def sr(name, ns="ns"):
    return runtime_id("ServingRuntime", ns, name), name


def builder(runtimes, sized=True, query=1, one_bounded=ONE_BOUNDED):
    """runtimes: [((id, name), score, distance)], all qualifying for `query`
    (examined, no failed check), with `score` for the query's view; sized:
    the query's model sets modelParameterSize 3.21B. The distance is given
    per runtime (runtime_distance/2, whether or not the model is sized, as
    sizes.lp gives it), or for a name in `one_bounded` per size in use
    (sized_distance/3, so only when sized)."""
    b = FactBuilder(schema=None)
    ranks = {name: k for k, name in enumerate(sorted({name for (_, name), _, _ in runtimes}), 1)}
    b.fact.query_view(query, VIEW)
    if sized:
        b.fact.sized_query(query, "3.21B", b.exact(SIZE))
    for (r, name), score, distance in runtimes:
        b.fact.runtime(r)
        b.fact.examined(query, r)
        b.fact.view_score(VIEW, r, b.exact(score))
        if name not in one_bounded:
            b.fact.runtime_distance(r, b.exact(distance))
        elif sized:
            b.fact.sized_distance(b.exact(SIZE), r, b.exact(distance))
        b.fact.runtime_name_rank(r, ranks[name])
    return scoped(b, (query,), (r for (r, _), _, _ in runtimes))


def keys(answer, query=1):
    """rank_key of `query`: runtime -> its vector, as integers (one per
    runtime: a second vector would add to the first in every level)."""
    rows = [
        (str(s.arguments[1]), tuple(a.number for a in s.arguments[2].arguments))
        for s in answer.symbols
        if s.match("rank_key", 3) and s.arguments[0].number == query
    ]
    vectors = dict(rows)
    assert len(vectors) == len(rows), f"more than one rank_key per runtime: {sorted(rows)}"
    return vectors


def order(b):
    by_definition = successive_optima(FILES, b, upstream=UPSTREAM)
    best = optimum(FILES, b, upstream=UPSTREAM)
    vectors = keys(best.answer)
    assert vectors == keys(run(KEYS, b, upstream=UPSTREAM))  # ordering.lp alone gives the same keys
    assert sorted(vectors, key=vectors.get) == by_definition  # the keys sort as the optima come
    assert best.answer.rows("selected") == {("1", by_definition[0])}
    return by_definition


def names(*runtimes):
    return [text(r) for r, _ in runtimes]


def test_o7_with_model_size():
    """O7: higher score first (O2) despite the largest distance; then smaller
    distance (O3): a one-bounded range beats a two-bounded one."""
    b = builder([(csr(n), s, d) for n, s, d in O7])
    assert order(b) == names(*(csr(n) for n in ["z-top", "b-open", "a-min2", "c-1to8", "d-wide"]))


def test_o7_without_model_size():
    """O7, O3: no model size, no distance: the score-6 runtimes by name (O4)."""
    b = builder([(csr(n), s, d) for n, s, d in O7], sized=False)
    assert order(b) == names(*(csr(n) for n in ["z-top", "a-min2", "b-open", "c-1to8", "d-wide"]))


def test_o1_namespaced_first_whatever_the_score():
    """O1: every qualifying ServingRuntime before every ClusterServingRuntime,
    whatever score and distance; O6: a shared name gives two runtimes."""
    b = builder([(csr("a"), 100, 0), (sr("z"), 1, 70 * B), (sr("a"), 2, 0), (csr("z"), 50, 0)])
    assert order(b) == names(sr("a"), sr("z"), csr("a"), csr("z"))


def test_o2_exact_scores_beyond_32_bits():
    """O2, I8: scores compare exactly (4,294,967,297 vs 4,294,967,296)."""
    b = builder([(csr("a"), 2**32, 0), (csr("b"), 2**32 + 1, 0)])
    assert order(b) == names(csr("b"), csr("a"))


def test_o4_name_order_by_code_point():
    """O4: ascending metadata.name by character code ("a-b" before "ab", "B" before "a")."""
    b = builder([(csr("ab"), 6, 0), (csr("a-b"), 6, 0), (csr("B"), 6, 0)])
    assert order(b) == names(csr("B"), csr("a-b"), csr("ab"))


def test_rank_key_vectors():
    """O1-O4 as one vector per qualifying runtime, highest criterion first:
    (O1 scope: 0 for a ServingRuntime, 1 for a ClusterServingRuntime; O2 the
    negated rank K of the score val(K, D); O3 the rank of the distance; O4
    the name rank). Ranks keep the order of the exact numbers (I8)."""
    b = builder([(sr("z-top"), 8, 69 * B), (csr("b-open"), 6, 0), (csr("a-min2"), 6, 1_210_000_000)])
    vectors = keys(run(KEYS, b, upstream=UPSTREAM))
    # the positive exact numbers, in order: 6, 8, 1.21B, 3.21B, 69B -> ranks 1..5
    assert vectors == {
        names(sr("z-top"))[0]: (0, -2, 5, 3),
        names(csr("b-open"))[0]: (1, -1, 0, 2),
        names(csr("a-min2"))[0]: (1, -1, 3, 1),
    }


def test_o3_unsized_distance_level_is_zero():
    """O3: a model without a size skips the step: every key has 0 there,
    whatever distance the runtime's range gives."""
    b = builder([(csr("a"), 6, 5 * B), (csr("b"), 8, 7 * B)], sized=False)
    assert {v[2] for v in keys(run(KEYS, b, upstream=UPSTREAM)).values()} == {0}


def test_o3_distance_for_the_querys_size():
    """O3 (Z5): a one-bounded range's distance is the one for the query's
    model size; a sized query whose runtime has no distance gets no key
    (the query ends with an outcome, docs/profiles.md section 0)."""
    (a, _), (nodist, _) = csr("a-min2"), csr("n")
    b = builder([(csr("a-min2"), 6, 1_210_000_000)])
    b.fact.sized_distance(b.exact(7 * B), a, b.exact(5 * B))  # another model's size
    b.fact.query_view(2, VIEW)
    b.fact.sized_query(2, "7B", b.exact(7 * B))
    b.fact.examined(2, a)
    for q in (1, 2):
        b.fact.examined(q, nodist)
    b.fact.runtime(nodist)
    b.fact.view_score(VIEW, nodist, b.exact(6))
    b.fact.runtime_name_rank(nodist, 2)
    scoped(b, (2,), (nodist,))
    answer = run(KEYS, b, upstream=UPSTREAM)
    # the positive exact numbers, in order: 6, 1.21B, 3.21B, 5B, 7B -> ranks 1..5
    assert keys(answer, 1) == {text(a): (1, -1, 2, 1)}
    assert keys(answer, 2) == {text(a): (1, -1, 4, 1)}


@pytest.mark.parametrize("distance", ["unsized", "per-runtime", "per-size"])
def test_rank_key_only_for_qualifying_runtimes(distance):
    """Only qualifying runtimes are ordered: an examined runtime with a
    failed check, and a runtime the query does not examine, have a score and
    a distance but no key -- whichever way the distance is given (no size,
    per runtime, per size: one rule each)."""
    one_bounded = {"a", "b"} if distance == "per-size" else set()
    b = builder([(csr("a"), 6, 0), (csr("b"), 6, 0)], sized=distance != "unsized", one_bounded=one_bounded)
    failing, _ = csr("b")
    b.fact.failed(1, failing)
    unexamined, _ = csr("c")
    b.fact.runtime(unexamined)
    b.fact.view_score(VIEW, unexamined, b.exact(6))
    if distance == "per-size":
        b.fact.sized_distance(b.exact(SIZE), unexamined, b.exact(0))
    else:
        b.fact.runtime_distance(unexamined, b.exact(0))
    b.fact.runtime_name_rank(unexamined, 3)
    scoped(b, (), (unexamined,))
    assert set(keys(run(KEYS, b, upstream=UPSTREAM))) == set(names(csr("a")))


def test_criterion_levels():
    """The objective's levels, highest priority first: O1, O2, O3, O4."""
    best = optimum(FILES, builder([(csr("a"), 1, 0)]), upstream=UPSTREAM)
    assert best.answer.rows("criterion") == {
        ("4", "namespaced_first"),
        ("3", "higher_score"),
        ("2", "smaller_distance"),
        ("1", "name_order"),
    }


@pytest.mark.parametrize("sized", [True, False], ids=["sized", "unsized"])
def test_cost_vector_is_the_winners_and_has_every_level(sized):
    """The optimum's cost has one entry per criterion, and equals the
    winner's rank_key vector."""
    b = builder([(csr("b"), 6, 5 * B), (csr("a"), 6, 7 * B)], sized=sized)
    best = optimum(FILES, b, upstream=UPSTREAM)
    winner = names(csr("b") if sized else csr("a"))[0]
    assert best.answer.rows("selected") == {("1", winner)}
    assert best.cost == list(keys(best.answer)[winner])
    assert len(best.cost) == 4


def test_cost_vector_has_every_level_without_a_qualifying_runtime():
    """selection.lp keeps every level even when nothing is selected."""
    b = FactBuilder(schema=None)
    b.fact.query(1)
    best = optimum(FILES, b, upstream=UPSTREAM)
    assert best.answer.rows("selected") == set()
    assert best.cost == [0, 0, 0, 0]


@pytest.mark.parametrize(
    "runtimes",
    [
        pytest.param([(csr(n), s, d) for n, s, d in O7], id="O7"),
        pytest.param([(sr("x"), 6, 0), (csr("x"), 6, 0)], id="same-name-both-kinds"),
        pytest.param([(csr("a"), 1, 0), (csr("b"), 1, 0)], id="all-ties-but-name"),
    ],
)
def test_the_optimum_is_unique(runtimes):
    """optN enumerates every optimal model: exactly one, for every tie."""
    assert len(optimal_models(FILES, builder(runtimes), upstream=UPSTREAM)) == 1


def test_o5_one_selection_per_query():
    """O5: each query selects the first of its own order, independently:
    two queries with the same runtimes (and the same model view, so the same
    scores) select the same one (their costs do not merge); no qualifying
    runtime, no selection."""
    b = builder([(csr("a"), 1, 0), (csr("b"), 2, 0)])
    b.fact.sized_query(2, "3.21B", b.exact(SIZE))
    b.fact.query_view(2, VIEW)
    for r, _ in (csr("a"), csr("b")):
        b.fact.examined(2, r)
    scoped(b, (2,), ())
    b.fact.query(3)
    best = optimum(FILES, b, upstream=UPSTREAM)
    assert best.answer.rows("selected") == {("1", names(csr("b"))[0]), ("2", names(csr("b"))[0])}
