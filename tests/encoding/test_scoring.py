"""scoring.lp on its own: the runtime score (S1-S7, Q17).

An entry's weights are a term w(N) shared by every entry with the same stored
weights and priority; the exact products (weights_score_option/4) are built
by the fact builder's own arithmetic, `ome_asp.solver.facts.EntryTables.weights`,
from the stored weights (an absent weight is already 1, I3) and the priority
as written (None: absent). scoring.lp picks the product per w(N)
(weights_score/2) and the score of each entry that is not autoSelect: false
(entry_score/4). A score is taken per score view, what a model declares of
its format and framework (score_view/2): the signatures that match the view
(view_score_match/2) give the counted entries (S2), and the best of them is
the runtime's score for the view (view_score/3, given where some entry
counts; it may be 0 or less). The query's score is its model's view's
(query_view/2); S1's floor is score_zero/2, an examined pair whose score is
not above 0 (the one Q8, qualification.lp, tests for).

Upstream, given as facts: examined/2 (compatibility.lp and explanation.lp),
evaluated/2 (lookup.lp), and from compatibility.lp matched/1, pair/2,
mismatch/4, model_side/2 and side/1 (its two facts side(format),
side(framework)). Each entry here has its own signature sig(i) (entry i of
RT; other runtimes use explicit numbers). The PRIORITY and WEIGHT columns
(E9) are explanation.lp's (test_explanation.py).
"""

import pytest

from ome_asp.input.objects import Entry, FormatRef
from ome_asp.solver.facts import EntryTables, FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("scoring.lp",)
UPSTREAM = ("examined/2", "evaluated/2", "matched/1", "pair/2", "mismatch/4", "model_side/2", "side/1")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')
#: M's score view: it declares safetensors and transformers, no versions.
V = 'view("safetensors",none,set,"transformers",none)'


def model(b, m, fmt="safetensors", fmt_version=None):
    """Model m is matched and declares format `fmt` (version `fmt_version`,
    None: absent) and framework transformers."""
    f = b.fact
    f.matched(m)
    f.model_side(m, const("format"))
    f.model_side(m, const("framework"))
    f.model_declares(m, const("format"), fmt)
    f.model_declares(m, const("framework"), "transformers")
    if fmt_version is not None:
        f.model_version(m, const("format"), fmt_version)


def builder(*runtimes):
    """Query 1 evaluates M and examines `runtimes` (RT by default)."""
    b = FactBuilder(schema=None)
    b.fact.side(const("format"))
    b.fact.side(const("framework"))
    model(b, M)
    b.fact.evaluated(1, M)
    for r in runtimes or (RT,):
        b.fact.examined(1, r)
    b.tables = EntryTables(b, set())
    return b


def weights(b, wf=1, ww=1, priority=None):
    """The weights term of an entry with stored weights wf/ww and priority
    (None: absent), interned by the fact builder."""
    entry = Entry(
        name=None,
        model_format=FormatRef("safetensors", operator="Equal", weight=wf),
        model_framework=FormatRef("transformers", operator="Equal", weight=ww),
        priority=priority,
    )
    return b.tables.weights(entry)


def entry(b, i, wf=1, ww=1, priority=None, auto=None, mismatches=(), r=RT, n=None):
    """Entry i of r with signature sig(n) (n defaults to i): stored weights
    wf/ww, priority (None: absent), autoSelect (None: absent), the
    signature's mismatch pieces with M [(part, piece)]."""
    f = b.fact
    s = term(f"sig({i if n is None else n})")
    f.entry(r, i, s, weights(b, wf, ww, priority))
    f.pair(M, s)
    if auto is not None:
        f.entry_auto_select(r, i, const(auto))
    for part, piece in mismatches:
        f.mismatch(M, s, const(part), term(piece))


def solve(b):
    answer = run(FILES, b, upstream=UPSTREAM)
    assert answer.rows("query_view") == {("1", V)}
    return answer


def counted(answer, view=V):
    """The counted entries (S2) for `view`, as (runtime, index, score): an
    entry_score/4 whose signature matches the view."""
    matching = {s for v, s in answer.rows("view_score_match") if v == view}
    return {(r, i, score) for r, i, s, score in answer.rows("entry_score") if s in matching}


@pytest.mark.parametrize(
    ("wf", "ww", "priority", "score"),
    [
        pytest.param(1, 1, None, "2", id="absent-absent-absent"),
        pytest.param(1, 1, 2, "4", id="absent-absent-2"),
        pytest.param(2, 1, 2, "6", id="2-absent-2"),
        pytest.param(10, 5, 2, "30", id="10-5-2"),
        pytest.param(0, 1, 1, "11", id="format-0-counts-10"),
        pytest.param(0, 0, 3, "45", id="both-0-count-10-and-5"),
        pytest.param(-3, 1, 1, "-2", id="negative-S4"),
    ],
)
def test_s3_table(wf, ww, priority, score):
    """S3, every row: (wf' + ww') x P; S1: the runtime score is never below
    0 (view_score/3 keeps the best entry's -2, score_zero/2 floors it)."""
    b = builder()
    entry(b, 0, wf, ww, priority)
    answer = solve(b)
    assert answer.rows("weights_score") == {("w(1)", score)}
    assert answer.rows("view_score") == {(V, R, score)}
    assert answer.rows("score_zero") == ({("1", R)} if score.startswith("-") else set())


def test_s3_weights_are_read_once_per_weights_term():
    """S3 depends only on the stored weights and the priority: entries of
    two runtimes with equal ones share one w(N), read once (I3: an absent
    priority reads as 1, so it gives the same weights as priority 1)."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder(RT, other)
    entry(b, 0, 0, 1, None)
    entry(b, 1, 2, 1, 2)
    entry(b, 0, 0, 1, 1, r=other, n=2)
    answer = solve(b)
    assert answer.rows("weights_score") == {("w(1)", "11"), ("w(2)", "6")}
    assert answer.rows("weight_reading") == {
        ("w(1)", "format", "ten"), ("w(1)", "framework", "raw"), ("w(2)", "format", "raw"), ("w(2)", "framework", "raw"),
    }
    assert answer.rows("view_score") == {(V, R, "11"), (V, text(other), "11")}


@pytest.mark.parametrize(
    ("entries", "best"),
    [
        pytest.param([(-3, 1, None), (-1, -1, 5)], {(V, R, "-2")}, id="negative-best"),
        pytest.param([(-1, 1, None)], {(V, R, "0")}, id="zero-best"),
        pytest.param([], set(), id="no-entry"),
    ],
)
def test_s1_floor_at_zero(entries, best):
    """S1: the maximum of 0 and the entry scores: a best entry scoring 0 or
    less, or none, scores 0 -- score_zero/2, the one Q8 (qualification.lp)
    tests for; no score is positive (view_score_positive/2), so O2
    (ordering.lp) has no key to give. view_score/3 is the best entry's
    score as it is, and absent without an entry."""
    b = builder()
    for i, (wf, ww, priority) in enumerate(entries):
        entry(b, i, wf, ww, priority)
    answer = solve(b)
    assert answer.rows("view_score") == best
    assert answer.rows("view_score_positive") == set()
    assert answer.rows("score_zero") == {("1", R)}


def test_s1_no_counted_entry_scores_zero():
    """S1: a runtime without entries, or with none counted, scores 0."""
    empty = runtime_id("ClusterServingRuntime", None, "empty")
    b = builder(RT, empty)
    entry(b, 0, 10, 5, 3, auto="false")
    answer = solve(b)
    assert counted(answer) == set()
    assert answer.rows("view_score") == set()
    assert answer.rows("score_zero") == {("1", R), ("1", text(empty))}


def test_s1_score_zero_only_for_examined_runtimes():
    """S1's floor is applied to the examined runtimes only (the ones that
    support the model, and every candidate when explaining): score_zero/2,
    Q8's input, has no row for another runtime. The score itself is taken
    per (view, runtime), whatever a query examines (view_score/3)."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    low = runtime_id("ClusterServingRuntime", None, "low")
    b = builder(RT, low)
    entry(b, 0)
    entry(b, 0, -3, 1, r=other, n=1)
    entry(b, 0, -3, 1, r=low, n=2)
    answer = solve(b)
    assert answer.rows("view_score") == {(V, R, "2"), (V, text(other), "-2"), (V, text(low), "-2")}
    assert answer.rows("score_zero") == {("1", text(low))}


def test_s1_the_score_is_the_models_view():
    """S1, S2: a query's score is the one of its model's score view
    (query_view/2): models declaring the same format and framework share it,
    one whose format version differs has its own (here no entry counts for
    it, so it scores 0)."""
    same = term('cbm("same")')
    versioned = term('cbm("versioned")')
    b = builder()
    model(b, same)
    model(b, versioned, fmt_version="1.0.0")
    b.fact.evaluated(2, same)
    b.fact.evaluated(3, versioned)
    for q in (2, 3):
        b.fact.examined(q, RT)
    entry(b, 0, 10, 5, 2)
    s = term("sig(0)")
    b.fact.pair(same, s)
    b.fact.pair(versioned, s)
    b.fact.mismatch(versioned, s, const("format"), term("runtime_lacks_version(format)"))
    answer = run(FILES, b, upstream=UPSTREAM)
    w = 'view("safetensors","1.0.0",set,"transformers",none)'
    assert answer.rows("query_view") == {("1", V), ("2", V), ("3", w)}
    assert answer.rows("view_score_match") == {(V, "sig(0)")}
    assert answer.rows("view_score") == {(V, R, "30")}
    assert answer.rows("score_zero") == {("3", R)}


def test_s7_best_entry_wins():
    """S7: entries scoring 2 and 30 give 30."""
    b = builder()
    entry(b, 0)
    entry(b, 1, 10, 5, 2)
    answer = solve(b)
    assert counted(answer) == {(R, "0", "2"), (R, "1", "30")}
    assert answer.rows("view_score") == {(V, R, "30")}


def test_s7_best_counted_entry_wins():
    """S7 with S2: the best of the counted entries only: entries scoring 30
    (format name mismatch) and 45 (autoSelect false) do not count, so the
    entry scoring 2 gives the score."""
    b = builder()
    entry(b, 0)
    entry(b, 1, 10, 5, 2, mismatches=[("format", 'name_mismatch(format,"safetensors","onnx")')])
    entry(b, 2, 0, 0, 3, auto="false")
    answer = solve(b)
    assert counted(answer) == {(R, "0", "2")}
    assert answer.rows("view_score") == {(V, R, "2")}


def test_s7_equal_best_entries():
    """S7: two counted entries with the best score 6 give 6."""
    b = builder()
    entry(b, 0, 2, 1, 2)
    entry(b, 1, 1, 1, 3)
    entry(b, 2)
    answer = solve(b)
    assert counted(answer) == {(R, "0", "6"), (R, "1", "6"), (R, "2", "2")}
    assert answer.rows("view_score") == {(V, R, "6")}


@pytest.mark.parametrize(
    ("auto", "counts"),
    [pytest.param(None, True, id="absent-counts"), pytest.param("true", True, id="true"), pytest.param("false", False, id="false")],
)
def test_q17_auto_select(auto, counts):
    """Q17 (S2): an entry counts unless its autoSelect is false; absent counts."""
    b = builder()
    entry(b, 0, 2, 1, 2, auto=auto)
    answer = solve(b)
    assert counted(answer) == ({(R, "0", "6")} if counts else set())
    assert answer.rows("view_score") == ({(V, R, "6")} if counts else set())
    assert answer.rows("score_zero") == (set() if counts else {("1", R)})


def test_q17_auto_select_is_per_entry_not_per_signature():
    """Q17: two entries with one signature and one weights term: only the
    one whose autoSelect is not false counts."""
    b = builder()
    entry(b, 0, 2, 1, 2, auto="false")
    entry(b, 1, 2, 1, 2, n=0)
    answer = solve(b)
    assert answer.rows("entry_score") == {(R, "1", "sig(0)", "6")}
    assert counted(answer) == {(R, "1", "6")}


@pytest.mark.parametrize(
    ("part", "piece", "counts"),
    [
        pytest.param("architecture", 'architecture_mismatch("L","M")', True, id="architecture-ignored"),
        pytest.param("architecture", 'runtime_lacks_architecture("L")', True, id="one-sided-architecture-ignored"),
        pytest.param("quantization", 'model_lacks_quantization("fp8")', True, id="quantization-ignored"),
        pytest.param("pipeline", "pipeline_missing", True, id="pipeline-ignored"),
        pytest.param("format", 'name_mismatch(format,"safetensors","onnx")', False, id="format-name"),
        pytest.param("format", 'version_mismatch(format,"1.0.0","2.0.0")', False, id="format-version"),
        pytest.param("format", 'model_lacks_version(format,"1.0.0")', False, id="format-version-one-sided"),
        pytest.param("framework", "runtime_lacks_version(framework)", False, id="framework-version-one-sided"),
        pytest.param("framework", 'model_lacks_framework("transformers")', False, id="I7-no-framework"),
    ],
)
def test_q17_only_format_and_framework_matter(part, piece, counts):
    """Q17 (S2, OQ-1): architecture, quantization and pipeline are not looked
    at; a format or framework mismatch (names or versions, one-sided versions
    included) leaves the entry out. So the scoring entry may be incompatible."""
    b = builder()
    entry(b, 0, 1, 1, 4, mismatches=[(part, piece)])
    answer = solve(b)
    assert answer.rows("score_match") == ({(text(M), "sig(0)")} if counts else set())
    assert counted(answer) == ({(R, "0", "8")} if counts else set())
    assert answer.rows("view_score") == ({(V, R, "8")} if counts else set())
    assert answer.rows("score_zero") == (set() if counts else {("1", R)})


def test_large_weights_stay_exact():
    """I8: a weight of 3,000,000,000 scores exactly 3,000,000,001; the best
    entry is chosen by exact comparison beyond 32 bits
    ((2^31 - 1 + 1) x 2 = 4,294,967,296)."""
    b = builder()
    entry(b, 0, 3_000_000_000, 1)
    entry(b, 1, 2**31 - 1, 1, 2)
    answer = solve(b)
    assert answer.rows("weights_score") == {("w(1)", "3000000001"), ("w(2)", "4294967296")}
    assert counted(answer) == {(R, "0", "3000000001"), (R, "1", "4294967296")}
    assert answer.rows("view_score") == {(V, R, "4294967296")}
