"""explanation.lp: what only explain and the no-runtime message need --
every candidate examined (Q1) and which of them support the model, the Q5
failure (E14 row 4) with its model label (E16) and the E15 pieces per (model,
signature), which failed check is a No row's first (its REASON, E14) and
which are later ones, in check order, the Yes rows (Q9: qualifies/2), which
excluded runtimes the no-runtime message lists (O8), and PRIORITY and WEIGHT
(E9).

compatibility.lp is loaded alongside: it supplies part_order/2 (E15's part
order, the data under test for the ordering), pair/2, sig_mismatch/2,
compatible/2 and first_compatible_entry/3 from the signatures, and reads
explanation.lp's first_entry_wanted/2. Where a test gives mismatch pieces
directly they are mismatch/4 facts (compatibility.lp derives the same atoms
from what a signature declares).

Upstream, given as facts: evaluated/2, runtime_scope/2 and query_scope/2
(lookup.lp), version_match/3 (versions.lp), mismatch/4 (see above), from
qualification.lp fails/4 (the checks other than Q5) and failed/2, and for
the two tests that load details.lp (what explain -v reads): rank_key/3
(ordering.lp), query_view/2, entry_score/4, view_score_match/2,
weight_reading/3 and score_zero/2 (scoring.lp), sized_query/3 and distance_case/2 (sizes.lp),
version_either_suffixed/2 (versions.lp) for version_shape/8.
A candidate qualifies when it fails no check, so a test makes a runtime a No
row with its fails/4 and failed/2, as qualification.lp derives them (`fail`);
which failure is first explanation.lp derives itself (E14). The tests of E9
load scoring.lp too, for the score beside PRIORITY and WEIGHT; two tests run
qualification.lp and scoring.lp with it (every failed check of a Q5
failure), and two the engine (the E15 text is assembled per entry by
ome_asp/render/reasons.py).
"""

import pytest

from ome_asp.input.objects import (
    CLUSTER_BASE_MODEL,
    CLUSTER_SERVING_RUNTIME,
    Cluster,
    Entry,
    FormatRef,
    Model,
    Runtime,
    SizeRange,
    Source,
)
from ome_asp.render import reasons
from ome_asp.solver import ask
from ome_asp.solver.facts import (
    EntryTables,
    FactBuilder,
    Query,
    RuntimeRef,
    build_facts,
    const,
    runtime_id,
)
from ome_asp.solver.programs import Variant

from .lp import run, term, text

FILES = ("compatibility.lp", "explanation.lp", "failures.lp")  # E14 as find derives it; rows.lp: test_rows.py
UPSTREAM = (
    "evaluated/2", "runtime_scope/2", "query_scope/2", "version_match/3", "mismatch/4",
    "failed/2", "fails/4",
    "rank_key/3",  # ordering.lp, for details.lp's scoring_entry/6 and distance_basis/3
    "query_view/2", "entry_score/4", "view_score_match/2", "weight_reading/3",  # scoring.lp, for scoring_entry/6
    "score_zero/2",  # scoring.lp, for scoring_entry/6 of a Q8 row (issue 16)
    "sized_query/3", "distance_case/2",  # sizes.lp, for distance_basis/3
    "version_either_suffixed/2",  # versions.lp, for version_shape/8 (issue 24)
)

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')
W = term("w(1)")
LABEL = 'label("safetensors",none,none,none,none,none)'
FORMAT_UNSUPPORTED = f"format_unsupported({LABEL})"


def sig(n):
    return term(f"sig({n})")


def builder(model=None, runtimes=(RT,), evaluated=True):
    """Query 1 evaluates model M (a ClusterBaseModel, so every runtime given
    is a candidate); `model` maps label parts to values (format
    safetensors unless it says otherwise)."""
    model = {"format": "safetensors", **(model or {})}
    b = FactBuilder(schema=None)
    f = b.fact
    f.model(M)
    f.model_declares(M, const("format"), model["format"])
    if "framework" in model:
        f.model_has_framework(M)
        f.model_declares(M, const("framework"), model["framework"])
    for side in ("format", "framework"):
        if f"{side}_version" in model:
            f.model_version(M, const(side), model[f"{side}_version"])
    if "architecture" in model:
        f.model_architecture(M, model["architecture"])
    if "quantization" in model:
        f.model_quantization(M, model["quantization"])
    if evaluated:
        f.evaluated(1, M)
        f.query_scope(1, const("cluster"))
    for r in runtimes:
        f.runtime_scope(r, const("cluster"))
    return b


def entries(b, pieces, r=RT, first=0):
    """Entries of r, entry i with signature sig(first + i) whose mismatch
    pieces with M are pieces[i], a list of (part, piece); no pieces: the
    signature is compatible."""
    for i, entry_pieces in enumerate(pieces):
        s = sig(first + i)
        b.fact.entry(r, i, s, W)
        for part, piece in entry_pieces:
            b.fact.mismatch(M, s, const(part), term(piece))


def solve(b, files=FILES, upstream=UPSTREAM):
    return run(files, b, upstream=upstream)


def details(answer, s, m=M):
    """E15 pieces of (m, s) in the consumer's order (K)."""
    rows = [(int(k), piece) for m_, s_, k, piece in answer.rows("mismatch_detail") if (m_, s_) == (text(m), text(s))]
    keys = [k for k, _ in rows]
    assert len(set(keys)) == len(keys)  # K orders the pieces of a signature totally
    return [piece for _, piece in sorted(rows)]


# --- Q1, Q5 ------------------------------------------------------------------


def test_q1_every_candidate_is_examined():
    """Q1: explaining gives every candidate a row, so every candidate -- the
    namespace's ServingRuntimes and every ClusterServingRuntime, supporting
    the model or not -- is examined; others are not."""
    here = runtime_id("ServingRuntime", "ns1", "here")
    there = runtime_id("ServingRuntime", "ns2", "there")
    b = builder(runtimes=(RT,))
    b.fact.query_scope(1, "ns1")
    b.fact.runtime_scope(here, "ns1")
    b.fact.runtime_scope(there, "ns2")
    entries(b, [[]], r=here)
    entries(b, [[("format", 'name_mismatch(format,"safetensors","onnx")')]], first=1)
    answer = solve(b)
    assert answer.rows("supports") == {("1", text(here))}
    assert answer.rows("examined") == {("1", text(here)), ("1", R)}


def test_q5_the_failure_and_its_reason():
    """Q5 (E14 row 4): a candidate with entries none of which is compatible
    fails with the model's label; one without entries fails with no
    supported formats; a supporting candidate does not fail Q5."""
    empty = runtime_id("ClusterServingRuntime", None, "empty")
    supporting = runtime_id("ClusterServingRuntime", None, "supporting")
    b = builder(runtimes=(RT, empty, supporting))
    entries(b, [[("format", 'name_mismatch(format,"safetensors","onnx")')], [("architecture", 'model_lacks_architecture("A")')]])
    entries(b, [[("architecture", 'model_lacks_architecture("A")')], []], r=supporting, first=1)
    answer = solve(b)
    assert answer.rows("fails") == {
        ("1", R, "q5", FORMAT_UNSUPPORTED),
        ("1", text(empty), "q5", f"no_supported_formats({LABEL})"),
    }


def test_q5_only_candidates_fail():
    """Q1, Q5: a runtime outside the query's scope is no candidate and gets
    no Q5 failure; nor does anything without an evaluated query."""
    there = runtime_id("ServingRuntime", "ns2", "there")
    b = builder(runtimes=())
    b.fact.runtime_scope(there, "ns2")
    entries(b, [[("format", 'name_mismatch(format,"safetensors","onnx")')]], r=there)
    assert solve(b).rows("fails") == set()
    b = builder(evaluated=False)
    entries(b, [[("format", 'name_mismatch(format,"safetensors","onnx")')]])
    assert solve(b).rows("fails") == set()


# --- E15 ---------------------------------------------------------------------


def test_e15_pieces_in_part_order():
    """E15: per signature, the pieces in the order pipeline, architecture,
    quantization, format, framework (not the facts' or the pieces'
    alphabetical order)."""
    b = builder()
    entries(
        b,
        [
            [
                ("framework", 'model_lacks_framework("transformers")'),
                ("format", 'name_mismatch(format,"safetensors","onnx")'),
                ("quantization", 'model_lacks_quantization("fp8")'),
                ("architecture", 'runtime_lacks_architecture("LlamaForCausalLM")'),
                ("pipeline", "pipeline_missing"),
            ],
            [("format", "runtime_lacks_version(format)")],
        ],
    )
    answer = solve(b)
    assert details(answer, sig(0)) == [
        "pipeline_missing",
        'runtime_lacks_architecture("LlamaForCausalLM")',
        'model_lacks_quantization("fp8")',
        'name_mismatch(format,"safetensors","onnx")',
        'model_lacks_framework("transformers")',
    ]
    assert details(answer, sig(1)) == ["runtime_lacks_version(format)"]


def test_e15_example():
    """E15's example: entry 0 (gguf, Mistral, fp8), entry 1 (no format
    version, framework 4.46.0 GreaterThanOrEqual)."""
    b = builder()
    entries(
        b,
        [
            [
                ("quantization", 'model_lacks_quantization("fp8")'),
                ("format", 'name_mismatch(format,"safetensors","gguf")'),
                ("architecture", 'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")'),
            ],
            [
                ("framework", 'version_mismatch(framework,"4.45.0.dev0","4.46.0")'),
                ("format", "runtime_lacks_version(format)"),
            ],
        ],
    )
    answer = solve(b)
    assert [details(answer, sig(0)), details(answer, sig(1))] == [
        [
            'architecture_mismatch("LlamaForCausalLM","MistralForCausalLM")',
            'model_lacks_quantization("fp8")',
            'name_mismatch(format,"safetensors","gguf")',
        ],
        ["runtime_lacks_version(format)", 'version_mismatch(framework,"4.45.0.dev0","4.46.0")'],
    ]


def test_e15_unknown_mismatch():
    """E15: a signature without any piece is an unknown mismatch (K = 0);
    one with pieces has no such piece."""
    b = builder()
    entries(b, [[("architecture", 'architecture_mismatch("A","B")')], []])
    answer = solve(b)
    assert details(answer, sig(0)) == ['architecture_mismatch("A","B")']
    assert details(answer, sig(1)) == ["unknown_mismatch"]
    assert (text(M), "sig(1)", "0", "unknown_mismatch") in answer.rows("mismatch_detail")


def test_e15_pieces_are_per_model_and_signature():
    """E15 pieces depend only on the model and what an entry declares: a
    signature shared by entries of two runtimes has one set of pieces, with
    no runtime or entry in it."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder(runtimes=(RT, other))
    entries(b, [[("architecture", 'architecture_mismatch("A","B")')]])
    b.fact.entry(other, 3, sig(0), W)
    answer = solve(b)
    assert answer.rows("mismatch_detail") == {(text(M), "sig(0)", "2", 'architecture_mismatch("A","B")')}
    assert answer.rows("fails") == {("1", R, "q5", FORMAT_UNSUPPORTED), ("1", text(other), "q5", FORMAT_UNSUPPORTED)}


# --- E16 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "label"),
    [
        pytest.param({"format": "pytorch"}, '"pytorch",none,none,none,none,none', id="mt:pytorch"),
        pytest.param({"format": "tensorflow", "format_version": "2.0.0"}, '"tensorflow","2.0.0",none,none,none,none', id="mt:tensorflow:2.0.0"),
        pytest.param(
            {"format": "pytorch", "format_version": "1.0.0", "architecture": "transformer", "quantization": "fp16",
             "framework": "transformers", "framework_version": "4.0.0"},
            '"pytorch","1.0.0","transformer","fp16","transformers","4.0.0"', id="mt:pytorch:1.0.0:transformer:fp16:transformers:4.0.0",
        ),
        pytest.param(
            {"format_version": "1.0.0", "architecture": "LlamaForCausalLM", "framework": "transformers"},
            '"safetensors","1.0.0","LlamaForCausalLM",none,"transformers",none', id="framework-without-version",
        ),
        pytest.param({"quantization": "fp8"}, '"safetensors",none,none,"fp8",none,none', id="quantization-only"),
        pytest.param({"format_version": ""}, '"safetensors","",none,none,none,none', id="empty-version-is-set"),
    ],
)
def test_e16_label_with_none_parts(model, label):
    """E16: the label's parts, none for each part the model does not set (E16
    examples by id); the Q5 reason carries it."""
    b = builder(model)
    b.fact.sig_declares(sig(0), const("format"), "onnx")
    b.fact.entry(RT, 0, sig(0), W)
    answer = solve(b)
    assert answer.rows("query_label") == {("1", f"label({label})")}
    assert {row for row in answer.rows("fails") if row[2] == "q5"} == {("1", R, "q5", f"format_unsupported(label({label}))")}


def test_e16_label_only_for_evaluated_queries():
    b = builder(evaluated=False)
    assert solve(b).rows("query_label") == set()


# --- E14, O8: the first failure and the later ones ------------------------------

REASONS = {
    "q2": "runtime_disabled",
    "q3": "accelerator_class_unsupported",
    "q4": 'mode_mismatch(engine,"MultiNode","OMENative")',
    "q5": FORMAT_UNSUPPORTED,
    "q6": 'size_out_of_range("3.21B","500M","2B")',
    "q7": "no_auto_select_entry",
    "q8": "auto_select_score_zero",
}
CHECKS = list(REASONS)  # the check order Q2-Q8


def fail(b, r, *checks, q=1, reasons=None):
    """qualification.lp's verdict on r for query q, as facts: fails/4 for
    each of `checks` (with its reason from `reasons`, else REASONS) and,
    as it derives it from them, failed/2. No order is given: explanation.lp
    derives which failure is first (E14)."""
    for check in checks:
        b.fact.fails(q, r, const(check), term((reasons or {}).get(check, REASONS[check])))
    if checks:
        b.fact.failed(q, r)
    return b


def failures(*checks, r=RT, reasons=None):
    """A program of query 1 where r fails `checks` (see `fail`)."""
    return fail(FactBuilder(schema=None), r, *checks, reasons=reasons)


@pytest.mark.parametrize(
    "checks",
    [pytest.param(CHECKS[k:], id=f"from-{CHECKS[k]}") for k in range(7)]
    + [pytest.param([c], id=f"only-{c}") for c in CHECKS]
    + [pytest.param(checks, id="-".join(checks)) for checks in (["q3", "q6"], ["q5", "q8"], ["q6", "q7"], ["q7", "q8"], ["q2", "q8"])]
    + [pytest.param([], id="none")],
)
def test_e14_the_first_failed_check_in_check_order_and_the_later_ones(checks):
    """E14: of a row's failed checks, the first in the order Q2-Q8 gives its
    REASON (first_failure/4, with that check's reason); every other one has
    a failed check before it (failed_before/3) and is a later failure with
    its own reason; a runtime failing no check has neither."""
    answer = solve(failures(*checks))
    first = min(checks, key=CHECKS.index) if checks else None
    later = [c for c in checks if c != first]
    assert answer.rows("first_failure") == (set() if first is None else {("1", R, first, REASONS[first])})
    assert answer.rows("failed_before") == {("1", R, c) for c in later}
    assert answer.rows("later_failure") == {("1", R, c, REASONS[c]) for c in later}


ROW7 = 'matching_entry_not_auto_selected("safetensors")'
ROW8 = "auto_select_score_zero"


@pytest.mark.parametrize(
    ("fails", "first"),
    [
        pytest.param({"q8": ROW7}, "q8", id="row7-alone"),
        pytest.param({"q8": ROW8}, "q8", id="row8-alone"),
        pytest.param({"q7": REASONS["q7"], "q8": ROW8}, "q7", id="q7-before-row8"),
        pytest.param({"q5": FORMAT_UNSUPPORTED, "q8": ROW8}, "q5", id="q5-before-row8"),
    ],
)
def test_e14_rows_7_and_8_in_check_order(fails, first):
    """E14 rows 7 and 8: Q8's reason (qualification.lp's, OQ-21) is the
    row's REASON only when Q8 is the first failed check; a runtime failing
    Q7 (row 8 then: no entry has autoSelect: true) or Q5 (no compatible
    entry) reports that first and Q8 as a later failure."""
    answer = solve(failures(*fails, reasons=fails))
    assert answer.rows("first_failure") == {("1", R, first, fails[first])}
    assert answer.rows("later_failure") == {("1", R, c, reason) for c, reason in fails.items() if c != first}


def test_e14_failed_before_marks_every_failed_check_after_the_first():
    """E14: a failed check is "before" another by check order, per query and
    runtime: every failed check of a row but its first has one before it
    (the later failures), whatever another row of the same runtime or query
    fails."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = failures("q2", "q6", "q8")
    fail(b, other, "q6", "q7")
    fail(b, RT, "q8", q=2)
    answer = solve(b)
    assert answer.rows("failed_before") == {("1", R, "q6"), ("1", R, "q8"), ("1", text(other), "q7")}
    assert answer.rows("first_failure") == {
        ("1", R, "q2", "runtime_disabled"),
        ("1", text(other), "q6", REASONS["q6"]),
        ("2", R, "q8", REASONS["q8"]),
    }


@pytest.mark.parametrize(("check", "listed"), [(c, c in ("q2", "q3", "q4", "q5", "q6")) for c in REASONS])
def test_o8_excluded_in_message_only_for_first_failures_q2_q6(check, listed):
    """O8: a runtime whose first failed check is one of Q2-Q6 is listed;
    one that passed Q2-Q6 and failed Q7 or Q8 is only counted."""
    assert solve(failures(check)).rows("excluded_in_message") == ({("1", R)} if listed else set())


def test_o8_the_first_failure_decides():
    """O8: a runtime that fails Q2 first is listed even though it fails Q7
    and Q8 too; the later failures are its other failed checks."""
    answer = solve(failures("q2", "q7", "q8"))
    assert answer.rows("excluded_in_message") == {("1", R)}
    assert answer.rows("later_failure") == {("1", R, "q7", REASONS["q7"]), ("1", R, "q8", REASONS["q8"])}


def test_o8_no_message_when_some_runtime_qualifies():
    """O8: the message exists only when no candidate qualifies, so with a
    qualifying runtime (a candidate failing no check) no excluded runtime is
    listed."""
    ok = runtime_id("ClusterServingRuntime", None, "ok")
    b = failures("q2")
    b.fact.query_scope(1, const("cluster"))
    for r in (RT, ok):
        b.fact.runtime_scope(r, const("cluster"))
    answer = solve(b)
    assert answer.rows("qualifies") == {("1", text(ok))}
    assert answer.rows("excluded_in_message") == set()


def test_o8_qualifying_runtime_not_listed():
    """Q9, O8: a candidate failing no check qualifies (a Yes row) and is not
    listed; one that failed a check does not qualify."""
    failing = runtime_id("ClusterServingRuntime", None, "failing")
    b = FactBuilder(schema=None)
    b.fact.query_scope(1, const("cluster"))
    for r in (RT, failing):
        b.fact.runtime_scope(r, const("cluster"))
    fail(b, failing, "q2")
    answer = solve(b)
    assert answer.rows("qualifies") == {("1", R)}
    assert answer.rows("excluded_in_message") == set()


# --- with qualification.lp and scoring.lp --------------------------------------

PIPELINE = ("compatibility.lp", "scoring.lp", "qualification.lp", "explanation.lp", "failures.lp")
PIPELINE_UPSTREAM = (
    "evaluated/2", "runtime_scope/2", "query_scope/2", "version_match/3",
    "lacks_requested_class/2", "mode_reason/3", "size_reason/3", "range_unsupported/3",
    "rank_key/3",  # ordering.lp, for scoring_entry/6 and distance_basis/3
    "sized_query/3", "distance_case/2",  # sizes.lp, for distance_basis/3
    "version_either_suffixed/2",  # versions.lp, for version_shape/8 (issue 24)
)


def test_q5_runtime_without_entries_fails_q7_and_q8_too():
    """Q5, E14 row 4: a runtime without entries fails with no supported
    formats (no per-entry pieces); being examined as a candidate, it fails
    Q7 and Q8 too (S1: it scores 0), reported as later failures."""
    b = builder()
    answer = solve(b, PIPELINE, PIPELINE_UPSTREAM)
    assert answer.rows("first_failure") == {("1", R, "q5", f"no_supported_formats({LABEL})")}
    assert answer.rows("later_failure") == {("1", R, "q7", "no_auto_select_entry"), ("1", R, "q8", "auto_select_score_zero")}
    assert answer.rows("excluded_in_message") == {("1", R)}


def test_q5_every_check_runs_on_a_candidate_that_does_not_support():
    """Q2-Q8 are each evaluated on their own for every candidate when
    explaining: a disabled runtime without a compatible entry fails Q2 first
    and Q5, Q6, Q7, Q8 later."""
    b = builder()
    b.fact.sig_declares(sig(0), const("format"), "onnx")
    b.fact.entry(RT, 0, sig(0), W)
    b.fact.runtime_disabled(RT)
    b.fact.size_reason(1, RT, term(REASONS["q6"]))
    answer = solve(b, PIPELINE, PIPELINE_UPSTREAM)
    assert answer.rows("first_failure") == {("1", R, "q2", "runtime_disabled")}
    assert {row[2] for row in answer.rows("later_failure")} == {"q5", "q6", "q7", "q8"}


# --- E9 ----------------------------------------------------------------------

E9_FILES = ("compatibility.lp", "scoring.lp", "explanation.lp", "failures.lp")
LLAMA, MISTRAL = "LlamaForCausalLM", "MistralForCausalLM"


def e9_builder():
    """Query 1 evaluates M (safetensors / transformers, LlamaForCausalLM)."""
    b = builder({"framework": "transformers", "architecture": LLAMA})
    b.tables = EntryTables(b, set())
    return b


def e9_entry(b, i, wf=1, ww=1, priority=None, auto=None, arch=LLAMA, r=RT):
    """Entry i of r: the model's format and framework names, architecture
    `arch` (compatible iff LLAMA), stored weights wf/ww, priority and
    autoSelect (None: absent)."""
    entry = Entry(
        name=None,
        model_format=FormatRef("safetensors", operator="Equal", weight=wf),
        model_framework=FormatRef("transformers", operator="Equal", weight=ww),
        architecture=arch,
        priority=priority,
        auto_select=None if auto is None else auto == "true",
    )
    b.fact.entry(r, i, b.tables.signature(entry), b.tables.weights(entry))
    if auto is not None:
        b.fact.entry_auto_select(r, i, const(auto))


def scores(answer, q="1"):
    """S1: the score of each runtime for query q, (runtime, score), read from
    q's score view (scoring.lp)."""
    views = {v for q_, v in answer.rows("query_view") if q_ == q}
    return {(r, score) for v, r, score in answer.rows("view_score") if v in views}


def _e9_row5(b):
    # Q19 row 1: entry 0 (compatible) is not auto-selected; entry 1
    # (incompatible) scores 10
    e9_entry(b, 0, priority=1, auto="false")
    e9_entry(b, 1, priority=5, auto="true", arch=MISTRAL)


@pytest.mark.parametrize(
    ("build", "score", "priority", "weight"),
    [
        pytest.param(lambda b: e9_entry(b, 0, 2, 1, 2), "6", "2", "6", id="2-absent-p2"),
        pytest.param(lambda b: e9_entry(b, 0, 1, 1, 3), "6", "3", "6", id="absent-absent-p3"),
        pytest.param(lambda b: e9_entry(b, 0, 0, 1, 1), "11", "1", "1", id="format-0-left-out"),
        pytest.param(lambda b: e9_entry(b, 0, 0, 0, 2), "30", "2", "0", id="both-0-left-out"),
        pytest.param(_e9_row5, "10", "1", "2", id="first-compatible-not-auto-selected"),
        pytest.param(lambda b: e9_entry(b, 0, -1, 3, 1), "2", "1", "3", id="negative-left-out"),
        pytest.param(lambda b: e9_entry(b, 0, 3, 2, None), "5", "1", "5", id="absent-priority-is-1"),
    ],
)
def test_e9_table(build, score, priority, weight):
    """E9 table, every row, and S1's score beside it; WEIGHT has no 10/5
    reading and leaves weights <= 0 out (a Yes row: RT qualifies)."""
    b = e9_builder()
    build(b)
    answer = solve(b, E9_FILES)
    assert answer.rows("qualifies") == {("1", R)}
    assert scores(answer) == {(R, score)}
    assert answer.rows("explain_columns") == {("1", R, priority, weight)}


def test_e9_only_for_yes_rows():
    """E8, E9 (Q16): PRIORITY and WEIGHT only for a qualifying runtime; the
    first compatible entry is known for every supporting one (RT fails a
    check)."""
    b = e9_builder()
    e9_entry(b, 0, 2, 1, 2)
    fail(b, RT, "q2")
    answer = solve(b, E9_FILES)
    assert answer.rows("qualifies") == set()
    assert answer.rows("first_entry_wanted") == {("1", R)}
    assert answer.rows("first_compatible_entry") == {("1", R, "0")}
    assert answer.rows("explain_columns") == set()


def test_e9_weight_is_read_per_weights_term():
    """E9: WEIGHT depends only on the stored weights and the priority, so
    entries sharing them share one shown weight."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = e9_builder()
    b.fact.runtime_scope(other, const("cluster"))
    e9_entry(b, 0, 0, 3, 2)
    e9_entry(b, 0, 0, 3, 2, r=other)
    answer = solve(b, E9_FILES)
    assert answer.rows("weights_shown") == {("w(1)", "6")}
    assert answer.rows("explain_columns") == {("1", R, "2", "6"), ("1", text(other), "2", "6")}


def test_e9_large_weight_stays_exact():
    """I8, E9: a weight of 3,000,000,000 shows WEIGHT 3,000,000,001 from the
    first compatible entry while a later one scores 4,294,967,296."""
    b = e9_builder()
    e9_entry(b, 0, 3_000_000_000, 1)
    e9_entry(b, 1, 2**31 - 1, 1, 2)
    answer = solve(b, E9_FILES)
    assert scores(answer) == {(R, "4294967296")}
    assert answer.rows("explain_columns") == {("1", R, "1", "3000000001")}


# --- explain -v: why a Yes row ranks where it does ----------------------------------

RANKED_FILES = ("compatibility.lp", "scoring.lp", "ordering.lp", "explanation.lp", "failures.lp")
RANKED_UPSTREAM = tuple(u for u in UPSTREAM if u != "rank_key/3") + (
    "runtime/1",  # admission.lp
    "runtime_distance/2", "sized_distance/3",  # sizes.lp
)


def test_s1_scoring_entries_are_the_counted_entries_of_the_row_score():
    """S1, S2 (explain -v): a Yes row's scoring entries are its counted
    entries whose score is the row's (its rank key's): not one scoring less,
    nor one not counted (autoSelect false), whatever it would score; a No row
    has none."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = e9_builder()
    b.fact.runtime_scope(other, const("cluster"))
    for k, r in enumerate((RT, other)):
        b.fact.runtime(r)
        b.fact.runtime_name_rank(r, k)
    e9_entry(b, 0, 1, 2, 2)  # 6
    e9_entry(b, 1, 2, 1, 2)  # 6, other weights
    e9_entry(b, 2, 1, 1, 1)  # 2
    e9_entry(b, 3, 3, 3, 2, auto="false")  # would be 12: not counted
    e9_entry(b, 0, 1, 2, 2, r=other)
    fail(b, other, "q2")
    answer = solve(b, RANKED_FILES + ("details.lp",), RANKED_UPSTREAM)
    assert scores(answer) == {(R, "6"), (text(other), "6")}
    assert {row[:2] for row in answer.rows("rank_key")} == {("1", R)}
    assert {row[:3] for row in answer.rows("scoring_entry")} == {("1", R, "0"), ("1", R, "1")}
    assert {row[4:] for row in answer.rows("scoring_entry")} == {("raw", "raw")}


def test_z5_distance_basis_for_a_sized_yes_row():
    """Z5 (explain -v): a Yes row of a sized model shows which case gave its
    distance, its runtime's (distance_case/2); a runtime without a rank key
    (a No row) or a model without a size shows none."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder(runtimes=(RT, other))
    b.fact.rank_key(1, RT, term("(1,-1,0,0)"))
    b.fact.sized_query(1, "3.21B", b.exact(3_210_000_000))
    b.fact.distance_case(RT, term("both_bounds"))
    b.fact.distance_case(other, term("no_range"))
    b.fact.rank_key(2, RT, term("(1,-1,0,0)"))  # query 2: a model without a size
    assert solve(b, FILES + ("details.lp",)).rows("distance_basis") == {("1", R, "both_bounds")}


# --- the E15 text, assembled by the engine ----------------------------------------

SOURCE = Source("test.yaml", 1)
SEED_MODEL = Model(
    CLUSTER_BASE_MODEL, None, "m", SOURCE,
    model_format=FormatRef("safetensors", "1.0.0"),
    model_framework=FormatRef("transformers", "4.45.0.dev0"),
    architecture=LLAMA,
    size="3.21B",
)
# E15's example entries
GGUF = Entry(
    None, FormatRef("gguf", None, "Equal", 1), FormatRef("transformers", "4.45.0.dev0", "Equal", 1),
    architecture=MISTRAL, quantization="fp8", auto_select=True,
)
UNVERSIONED = Entry(
    None, FormatRef("safetensors", None, "Equal", 1), FormatRef("transformers", "4.46.0", "GreaterThanOrEqual", 1),
    architecture=LLAMA, auto_select=True,
)
MATCHING = Entry(
    None, FormatRef("safetensors", "1.0.0", "Equal", 1), FormatRef("transformers", "4.45.0.dev0", "Equal", 1),
    architecture=LLAMA, auto_select=True,
)
GGUF_PIECES = (
    "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM), "
    "model has no quantization but runtime requires fp8, "
    "format name mismatch (model=safetensors, runtime=gguf)"
)
UNVERSIONED_PIECES = (
    "model has format version but runtime has no version requirement, "
    "framework version mismatch (model=4.45.0.dev0, runtime=4.46.0)"
)


def csr_object(name, entries, size_range=None):
    return Runtime(CLUSTER_SERVING_RUNTIME, None, name, SOURCE, entries=tuple(entries), size_range=size_range)


def explain(*runtimes):
    cluster = Cluster(models=[SEED_MODEL], runtimes=list(runtimes))
    facts = build_facts(cluster, [Query("ns", model="m")])
    return facts, ask.solve(facts, 1, Variant.EXPLAIN).queries[1]


def test_e15_text_is_assembled_in_entry_order():
    """E14 row 4, E15: the reason lists each entry's pieces in list order,
    joined with "; " -- also when signatures are numbered in another order
    and entries share one (runtime a-first interns UNVERSIONED's signature
    before rt's entry 0 is seen)."""
    first = csr_object("a-first", [UNVERSIONED])
    rt = csr_object("rt", [GGUF, UNVERSIONED, GGUF])
    facts, answer = explain(first, rt)
    ref = RuntimeRef(CLUSTER_SERVING_RUNTIME, None, "rt")
    assert facts.signatures[ref] == ["sig(2)", "sig(1)", "sig(2)"]
    verdict = answer.verdicts[ref]
    check, reason = verdict.first_failure
    assert check == "q5"
    assert reasons.text(reason, verdict.format_details) == (
        "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0' not in supported formats: "
        f"{GGUF_PIECES}; {UNVERSIONED_PIECES}; {GGUF_PIECES}"
    )


def test_e15_details_only_for_a_format_failure():
    """E15 pieces belong to E14 row 4 only: no details for a runtime failing
    another check (Q6) even if some of its entries mismatch, for one without
    entries (no supported formats), or for a qualifying one."""
    sized = csr_object("sized", [GGUF, MATCHING], size_range=SizeRange("500M", "2B"))
    empty = csr_object("empty", [])
    ok = csr_object("ok", [GGUF, MATCHING])
    rt = csr_object("rt", [GGUF])
    _, answer = explain(sized, empty, ok, rt)
    verdicts = {ref.name: v for ref, v in answer.verdicts.items()}
    assert {name: v.first_failure and v.first_failure[0] for name, v in verdicts.items()} == {
        "sized": "q6", "empty": "q5", "ok": None, "rt": "q5",
    }
    assert verdicts["empty"].failures["q5"].name == "no_supported_formats"
    assert {name: v.format_details for name, v in verdicts.items() if name != "rt"} == {"sized": {}, "empty": {}, "ok": {}}
    assert set(verdicts["rt"].format_details) == {0}
