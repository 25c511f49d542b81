"""qualification.lp on its own: the checks Q2-Q8 in order, every failed check
with its reason (E14), the first failure, qualification (Q9), the model
label (E16).

Upstream, given as facts: candidate/2 and evaluated/2 (lookup.lp),
lacks_requested_class/2 (accelerators.lp), mode_reason/3 (deployment.lp),
supports_model/2 and first_compatible_entry/3 (compatibility.lp),
size_reason/3 (sizes.lp), positive_score/2 (scoring.lp).
"""

import pytest

from ome_asp.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("qualification.lp",)
UPSTREAM = (
    "candidate/2",
    "evaluated/2",
    "lacks_requested_class/2",
    "mode_reason/3",
    "supports_model/2",
    "first_compatible_entry/3",
    "size_reason/3",
    "positive_score/2",
)

RT = runtime_id("ClusterServingRuntime", None, "rt")
R = text(RT)
M = term('cbm("m")')
LABEL = 'label("safetensors",none,none,none,none,none)'
MODE = 'mode_mismatch(engine,"MultiNode","OMENative")'
SIZE = 'size_out_of_range("3.21B","500M","2B")'
CHECKS = ["q2", "q3", "q4", "q5", "q6", "q7", "q8"]
REASONS = {
    "q2": "runtime_disabled",
    "q3": "accelerator_class_unsupported",
    "q4": MODE,
    "q5": f"format_unsupported({LABEL})",
    "q6": SIZE,
    "q7": "no_auto_select_entry",
    "q8": "auto_select_score_zero",
}


def builder(model=None):
    """Query 1 evaluates model M; `model` maps label parts to values."""
    model = {"format": "safetensors", **(model or {})}
    b = FactBuilder()
    f = b.fact
    f.model(M)
    f.evaluated(1, M)
    f.candidate(1, RT)
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
    return b


def failing(b, checks):
    """Upstream facts that make RT fail exactly `checks` (one entry, index 0)."""
    f = b.fact
    f.entry(RT, 0)
    if "q2" in checks:
        f.runtime_disabled(RT)
    if "q3" in checks:
        f.lacks_requested_class(1, RT)
    if "q4" in checks:
        f.mode_reason(1, RT, term(MODE))
    if "q5" not in checks:
        f.supports_model(1, RT)
    if "q6" in checks:
        f.size_reason(1, RT, term(SIZE))
    if "q7" not in checks:
        f.entry_auto_select(RT, 0, const("true"))
    if "q8" not in checks:
        f.positive_score(1, RT)


def solve(b):
    return run(FILES, b, upstream=UPSTREAM)


@pytest.mark.parametrize(
    "checks",
    [pytest.param(CHECKS[k:], id=f"from-{CHECKS[k]}") for k in range(7)]
    + [pytest.param([c], id=f"only-{c}") for c in CHECKS]
    + [pytest.param(["q3", "q6"], id="q3-q6"), pytest.param(["q5", "q8"], id="q5-q8"), pytest.param(["q6", "q7"], id="q6-q7")]
    + [pytest.param([], id="none")],
)
def test_q2_q8_every_failed_check_and_the_first(checks):
    """Q2-Q8: each check is evaluated on its own (every failed check has its
    E14 reason); the first in order is the failed check; a candidate
    qualifies iff none fails (Q9)."""
    b = builder()
    failing(b, checks)
    answer = solve(b)
    assert answer.rows("fails") == {("1", R, c, REASONS[c]) for c in checks}
    first = min(checks, key=CHECKS.index) if checks else None
    assert answer.rows("first_failure") == (set() if first is None else {("1", R, first, REASONS[first])})
    assert answer.rows("qualifies") == (set() if checks else {("1", R)})


def test_q5_runtime_without_entries():
    """Q5, E14 row 4: a runtime without entries fails with no supported
    formats (no per-entry pieces); Q7 and Q8 fail too."""
    b = builder()
    answer = solve(b)
    assert answer.rows("fails") == {
        ("1", R, "q5", f"no_supported_formats({LABEL})"),
        ("1", R, "q7", "no_auto_select_entry"),
        ("1", R, "q8", "auto_select_score_zero"),
    }
    assert answer.rows("first_failure") == {("1", R, "q5", f"no_supported_formats({LABEL})")}


@pytest.mark.parametrize(
    ("auto_selects", "gate_open"),
    [
        pytest.param(["true"], True, id="true"),
        pytest.param(["false", "true"], True, id="any-entry-true"),
        pytest.param([None], False, id="absent-does-not-open"),
        pytest.param(["false"], False, id="false"),
        pytest.param([None, "false"], False, id="absent-and-false"),
    ],
)
def test_q7_q18_any_entry_with_auto_select_true(auto_selects, gate_open):
    """Q7 (Q18): any entry with autoSelect: true opens the gate, compatible or
    not (here entry 1 is the compatible one); absent does not open it."""
    b = builder()
    f = b.fact
    for i, auto in enumerate(auto_selects):
        f.entry(RT, i)
        if auto is not None:
            f.entry_auto_select(RT, i, const(auto))
    f.supports_model(1, RT)
    f.first_compatible_entry(1, RT, len(auto_selects) - 1)
    f.positive_score(1, RT)
    answer = solve(b)
    assert answer.rows("fails") == (set() if gate_open else {("1", R, "q7", "no_auto_select_entry")})


ROW7 = 'matching_entry_not_auto_selected("safetensors")'
ROW8 = "auto_select_score_zero"


@pytest.mark.parametrize(
    ("auto_selects", "first_compatible", "fails"),
    [
        # Q19 rows 3 and 6: the first compatible entry (1) is false, entry 0 true
        pytest.param(["true", "false"], 1, {"q8": ROW7}, id="E14-row7-first-compatible-false"),
        pytest.param(["true", None], 1, {"q8": ROW7}, id="E14-row7-first-compatible-absent"),
        # Q19 row 4: the first compatible entry is true, the score is 0
        pytest.param(["true"], 0, {"q8": ROW8}, id="E14-row8-first-compatible-true"),
        pytest.param(["false", "true"], 1, {"q8": ROW8}, id="E14-row8-later-entry-false"),
        # documented rule: row 7 only when some entry has autoSelect: true
        pytest.param(["false"], 0, {"q7": "no_auto_select_entry", "q8": ROW8}, id="row7-needs-an-auto-select-entry"),
        pytest.param([None, None], 1, {"q7": "no_auto_select_entry", "q8": ROW8}, id="row7-needs-an-auto-select-entry-absent"),
        # without a compatible entry, row 8 (Q5 fails first)
        pytest.param(["true", "false"], None, {"q5": f"format_unsupported({LABEL})", "q8": ROW8}, id="no-compatible-entry"),
    ],
)
def test_q8_reason_rows_7_and_8(auto_selects, first_compatible, fails):
    """Q8, E14 rows 7 and 8 (OQ-21): the reason depends on the first
    compatible entry's autoSelect; row 7 is used only when some entry has
    autoSelect: true (otherwise, and without a compatible entry, row 8)."""
    b = builder()
    f = b.fact
    for i, auto in enumerate(auto_selects):
        f.entry(RT, i)
        if auto is not None:
            f.entry_auto_select(RT, i, const(auto))
    if first_compatible is not None:
        f.supports_model(1, RT)
        f.first_compatible_entry(1, RT, first_compatible)
    answer = solve(b)
    assert answer.rows("fails") == {("1", R, c, reason) for c, reason in fails.items()}
    first = min(fails, key=CHECKS.index)
    assert answer.rows("first_failure") == {("1", R, first, fails[first])}


def test_q8_passes_with_a_positive_score():
    b = builder()
    f = b.fact
    f.entry(RT, 0)
    f.entry(RT, 1)
    f.entry_auto_select(RT, 0, const("true"))
    f.supports_model(1, RT)
    f.first_compatible_entry(1, RT, 1)
    f.positive_score(1, RT)
    assert solve(b).rows("qualifies") == {("1", R)}


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
    b.fact.entry(RT, 0)
    answer = solve(b)
    assert answer.rows("query_label") == {("1", f"label({label})")}
    assert {row for row in answer.rows("fails") if row[2] == "q5"} == {("1", R, "q5", f"format_unsupported(label({label}))")}


def test_e16_label_only_for_evaluated_queries():
    b = FactBuilder()
    b.fact.model(M)
    b.fact.model_declares(M, const("format"), "safetensors")
    assert solve(b).rows("query_label") == set()
