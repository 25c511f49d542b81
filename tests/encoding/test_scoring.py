"""scoring.lp on its own: the runtime score (S1-S7, Q17).

An entry's weights are a term w(N) shared by every entry with the same stored
weights and priority; the exact products (weights_score_option/4) are built
by the fact builder's own arithmetic, `ome_asp.facts.EntryTables.weights`,
from the stored weights (an absent weight is already 1, I3) and the priority
as written (None: absent). scoring.lp picks the product per w(N)
(weights_score/2) and the best counted entry per examined runtime.

Upstream, given as facts: examined/2 (qualification.lp and explanation.lp),
evaluated/2 (lookup.lp), and from compatibility.lp pair/2, mismatch/4 and
side/1 (its two facts side(format), side(framework)). Each entry here has its
own signature sig(i) (entry i of RT; other runtimes use explicit numbers).
The PRIORITY and WEIGHT columns (E9) are explanation.lp's
(test_explanation.py).
"""

import pytest

from ome_asp.facts import FactBuilder, EntryTables, const, runtime_id
from ome_asp.objects import Entry, FormatRef

from .lp import run, term, text

FILES = ("scoring.lp",)
UPSTREAM = ("examined/2", "evaluated/2", "pair/2", "mismatch/4", "side/1")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')


def builder(*runtimes):
    """Query 1 evaluates M and examines `runtimes` (RT by default)."""
    b = FactBuilder()
    b.fact.side(const("format"))
    b.fact.side(const("framework"))
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
    return run(FILES, b, upstream=UPSTREAM)


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
    """S3, every row: (wf' + ww') x P; S1: the runtime score is never below 0."""
    b = builder()
    entry(b, 0, wf, ww, priority)
    answer = solve(b)
    assert answer.rows("weights_score") == {("w(1)", score)}
    assert answer.rows("runtime_score") == {("1", R, score if not score.startswith("-") else "0")}


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
    assert answer.rows("runtime_score") == {("1", R, "11"), ("1", text(other), "11")}


@pytest.mark.parametrize(
    "entries",
    [
        pytest.param([(-3, 1, None), (-1, -1, 5)], id="negative-best"),
        pytest.param([(-1, 1, None)], id="zero-best"),
        pytest.param([], id="no-entry"),
    ],
)
def test_s1_floor_at_zero(entries):
    """S1: the maximum of 0 and the entry scores: a best entry scoring 0 or
    less, or none, gives exactly the zero term val(0, "0") -- the one Q8
    (qualification.lp) and O2 (ordering.lp) test for."""
    b = builder()
    for i, (wf, ww, priority) in enumerate(entries):
        entry(b, i, wf, ww, priority)
    answer = solve(b)
    assert answer.terms("runtime_score") == {("1", R, 'val(0,"0")')}


def test_s1_no_counted_entry_scores_zero():
    """S1: a runtime without entries, or with none counted, scores 0."""
    empty = runtime_id("ClusterServingRuntime", None, "empty")
    b = builder(RT, empty)
    entry(b, 0, 10, 5, 3, auto="false")
    answer = solve(b)
    assert answer.rows("counted_entry") == set()
    assert answer.terms("runtime_score") == {("1", R, 'val(0,"0")'), ("1", text(empty), 'val(0,"0")')}


def test_s1_only_examined_runtimes_are_scored():
    """The score is computed for the examined runtimes only (the ones that
    support the model, and every candidate when explaining)."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder(RT)
    entry(b, 0)
    entry(b, 0, r=other, n=0)
    answer = solve(b)
    assert answer.rows("runtime_score") == {("1", R, "2")}
    assert answer.rows("counted_entry") == {("1", R, "0", "2")}


def test_s7_best_entry_wins():
    """S7: entries scoring 2 and 30 give 30."""
    b = builder()
    entry(b, 0)
    entry(b, 1, 10, 5, 2)
    answer = solve(b)
    assert answer.rows("counted_entry") == {("1", R, "0", "2"), ("1", R, "1", "30")}
    assert answer.rows("runtime_score") == {("1", R, "30")}


def test_s7_equal_best_entries():
    """S7: two counted entries with the best score 6 give 6."""
    b = builder()
    entry(b, 0, 2, 1, 2)
    entry(b, 1, 1, 1, 3)
    entry(b, 2)
    answer = solve(b)
    assert answer.rows("counted_entry") == {("1", R, "0", "6"), ("1", R, "1", "6"), ("1", R, "2", "2")}
    assert answer.rows("runtime_score") == {("1", R, "6")}


@pytest.mark.parametrize(
    ("auto", "counted"),
    [pytest.param(None, True, id="absent-counts"), pytest.param("true", True, id="true"), pytest.param("false", False, id="false")],
)
def test_q17_auto_select(auto, counted):
    """Q17 (S2): an entry counts unless its autoSelect is false; absent counts."""
    b = builder()
    entry(b, 0, 2, 1, 2, auto=auto)
    answer = solve(b)
    assert answer.rows("counted_entry") == ({("1", R, "0", "6")} if counted else set())
    assert answer.rows("runtime_score") == {("1", R, "6" if counted else "0")}


def test_q17_auto_select_is_per_entry_not_per_signature():
    """Q17: two entries with one signature and one weights term: only the
    one whose autoSelect is not false counts."""
    b = builder()
    entry(b, 0, 2, 1, 2, auto="false")
    entry(b, 1, 2, 1, 2, n=0)
    assert solve(b).rows("counted_entry") == {("1", R, "1", "6")}


@pytest.mark.parametrize(
    ("part", "piece", "counted"),
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
def test_q17_only_format_and_framework_matter(part, piece, counted):
    """Q17 (S2, OQ-1): architecture, quantization and pipeline are not looked
    at; a format or framework mismatch (names or versions, one-sided versions
    included) leaves the entry out. So the scoring entry may be incompatible."""
    b = builder()
    entry(b, 0, 1, 1, 4, mismatches=[(part, piece)])
    answer = solve(b)
    assert answer.rows("score_match") == ({(text(M), "sig(0)")} if counted else set())
    assert answer.rows("counted_entry") == ({("1", R, "0", "8")} if counted else set())
    assert answer.rows("runtime_score") == {("1", R, "8" if counted else "0")}


def test_large_weights_stay_exact():
    """I8: a weight of 3,000,000,000 scores exactly 3,000,000,001; the best
    entry is chosen by exact comparison beyond 32 bits
    ((2^31 - 1 + 1) x 2 = 4,294,967,296)."""
    b = builder()
    entry(b, 0, 3_000_000_000, 1)
    entry(b, 1, 2**31 - 1, 1, 2)
    answer = solve(b)
    assert answer.rows("weights_score") == {("w(1)", "3000000001"), ("w(2)", "4294967296")}
    assert answer.rows("counted_entry") == {("1", R, "0", "3000000001"), ("1", R, "1", "4294967296")}
    assert answer.rows("runtime_score") == {("1", R, "4294967296")}
