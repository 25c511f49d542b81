"""scoring.lp on its own: the runtime score (S1-S7, Q17) and explain's
PRIORITY and WEIGHT (E9).

The exact products (entry_score_option/5, entry_weight_option/5) are built by
the fact builder's own arithmetic, `ome_asp.facts._add_entry_products`, from
the stored weights (an absent weight is already 1, I3) and the priority as
written (None: absent). Upstream, given as facts: candidate/2 and
query_entry/4 (lookup.lp); mismatch/5, first_compatible_entry/3 and side/1
(compatibility.lp; side/1 is its two facts side(format), side(framework)).
"""

import pytest

from ome_asp.facts import FactBuilder, _add_entry_products, const, runtime_id

from .lp import run, term, text

FILES = ("scoring.lp",)
UPSTREAM = ("candidate/2", "query_entry/4", "mismatch/5", "first_compatible_entry/3", "side/1")

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')


def builder(*runtimes):
    b = FactBuilder()
    b.fact.side(const("format"))
    b.fact.side(const("framework"))
    for r in runtimes or (RT,):
        b.fact.candidate(1, r)
    return b


def entry(b, i, wf=1, ww=1, priority=None, auto=None, mismatches=(), first=False, r=RT):
    """Entry i of r: stored weights wf/ww, priority (None: absent), autoSelect
    (None: absent), mismatch pieces [(part, piece)], first compatible entry?"""
    f = b.fact
    f.entry(r, i)
    f.query_entry(1, r, i, M)
    f.entry_weight(r, i, const("format"), b.exact(wf))
    f.entry_weight(r, i, const("framework"), b.exact(ww))
    if priority is not None:
        f.entry_priority(r, i, priority)
    if auto is not None:
        f.entry_auto_select(r, i, const(auto))
    _add_entry_products(b, r, i, wf, ww, priority)
    for part, piece in mismatches:
        f.mismatch(1, r, i, const(part), term(piece))
    if first:
        f.first_compatible_entry(1, r, i)


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
    assert answer.rows("entry_score") == {(R, "0", score)}
    assert answer.rows("runtime_score") == {("1", R, score if not score.startswith("-") else "0")}


def test_s1_floor_at_zero():
    """S1: the maximum of 0 and the entry scores: a negative best entry gives
    0, which is not positive (Q8) and has no scoring entry."""
    b = builder()
    entry(b, 0, -3, 1)
    entry(b, 1, -1, -1, 5)
    answer = solve(b)
    assert answer.rows("runtime_score") == {("1", R, "0")}
    assert answer.rows("positive_score") == set()
    assert answer.rows("scoring_entry") == set()


def test_s1_no_counted_entry_scores_zero():
    """S1: a runtime without entries, or with none counted, scores 0."""
    empty = runtime_id("ClusterServingRuntime", None, "empty")
    b = builder(RT, empty)
    entry(b, 0, 10, 5, 3, auto="false")
    answer = solve(b)
    assert answer.rows("runtime_score") == {("1", R, "0"), ("1", text(empty), "0")}
    assert answer.rows("positive_score") == set()


def test_s7_best_entry_wins():
    """S7: entries scoring 2 and 30 give 30; the scoring entry is the 30 one."""
    b = builder()
    entry(b, 0)
    entry(b, 1, 10, 5, 2)
    answer = solve(b)
    assert answer.rows("runtime_score") == {("1", R, "30")}
    assert answer.rows("positive_score") == {("1", R)}
    assert answer.rows("scoring_entry") == {("1", R, "1")}


def test_s7_equal_best_entries_are_all_scoring_entries():
    b = builder()
    entry(b, 0, 2, 1, 2)
    entry(b, 1, 1, 1, 3)
    entry(b, 2)
    answer = solve(b)
    assert answer.rows("runtime_score") == {("1", R, "6")}
    assert answer.rows("scoring_entry") == {("1", R, "0"), ("1", R, "1")}


@pytest.mark.parametrize(
    ("auto", "counted"),
    [pytest.param(None, True, id="absent-counts"), pytest.param("true", True, id="true"), pytest.param("false", False, id="false")],
)
def test_q17_auto_select(auto, counted):
    """Q17 (S2): an entry counts unless its autoSelect is false; absent counts."""
    b = builder()
    entry(b, 0, 2, 1, 2, auto=auto)
    answer = solve(b)
    assert answer.rows("counted_entry") == ({("1", R, "0")} if counted else set())
    assert answer.rows("runtime_score") == {("1", R, "6" if counted else "0")}


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
    assert answer.rows("counted_entry") == ({("1", R, "0")} if counted else set())
    assert answer.rows("runtime_score") == {("1", R, "8" if counted else "0")}


def _e9_row5(b):
    entry(b, 0, auto="false", priority=1, first=True)
    entry(b, 1, priority=5, auto="true")


@pytest.mark.parametrize(
    ("build", "score", "priority", "weight"),
    [
        pytest.param(lambda b: entry(b, 0, 2, 1, 2, first=True), "6", "2", "6", id="2-absent-p2"),
        pytest.param(lambda b: entry(b, 0, 1, 1, 3, first=True), "6", "3", "6", id="absent-absent-p3"),
        pytest.param(lambda b: entry(b, 0, 0, 1, 1, first=True), "11", "1", "1", id="format-0-left-out"),
        pytest.param(lambda b: entry(b, 0, 0, 0, 2, first=True), "30", "2", "0", id="both-0-left-out"),
        pytest.param(_e9_row5, "10", "1", "2", id="first-compatible-not-auto-selected"),
        pytest.param(lambda b: entry(b, 0, -1, -1, 1, first=True), "0", "1", "0", id="negative-left-out"),
        pytest.param(lambda b: entry(b, 0, 3, 2, None, first=True), "5", "1", "5", id="absent-priority-is-1"),
    ],
)
def test_e9_table(build, score, priority, weight):
    """E9 table, every row, and S1's score beside it; WEIGHT has no 10/5
    reading and leaves weights <= 0 out."""
    b = builder()
    build(b)
    answer = solve(b)
    assert answer.rows("runtime_score") == {("1", R, score)}
    assert answer.rows("explain_priority") == {("1", R, priority)}
    assert answer.rows("explain_weight") == {("1", R, weight)}


def test_e9_only_from_the_first_compatible_entry():
    """E9 (Q16): no first compatible entry, no PRIORITY/WEIGHT."""
    b = builder()
    entry(b, 0, 2, 1, 2)
    answer = solve(b)
    assert answer.rows("explain_priority") == set()
    assert answer.rows("explain_weight") == set()


def test_large_weights_stay_exact():
    """I8: a weight of 3,000,000,000 scores exactly 3,000,000,001 and shows
    that WEIGHT; the best entry is chosen by exact comparison beyond 32 bits
    ((2^31 - 1 + 1) x 2 = 4,294,967,296)."""
    b = builder()
    entry(b, 0, 3_000_000_000, 1, first=True)
    entry(b, 1, 2**31 - 1, 1, 2)
    answer = solve(b)
    assert answer.rows("entry_score") == {(R, "0", "3000000001"), (R, "1", "4294967296")}
    assert answer.rows("runtime_score") == {("1", R, "4294967296")}
    assert answer.rows("scoring_entry") == {("1", R, "1")}
    assert answer.rows("explain_weight") == {("1", R, "3000000001")}
