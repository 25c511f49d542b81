"""qualification.lp on its own: the checks Q2-Q8 in order, every failed check
with its reason (E14), the first failure, qualification (Q9), and which
pairs need their first compatible entry (Q8's reason, E14 rows 7 and 8).

qualification.lp examines the runtimes that support the model (Q5);
explanation.lp adds every candidate and derives the Q5 failure
(test_explanation.py). Here both are given as facts where a test needs them:
examined/2 for a candidate that does not support the model, fails/4 for its
Q5 failure.

Upstream, given as facts: evaluated/2 (lookup.lp), examined/2 and fails/4
(explanation.lp), lacks_requested_class/2 (accelerators.lp), mode_reason/3
(deployment.lp), supports/2 and first_compatible_entry/3 (compatibility.lp),
size_reason/3 (sizes.lp), runtime_score/3 (scoring.lp: exactly val(0, "0")
when not positive, S1).
"""

import pytest

from ome_asp.facts import FactBuilder, const, runtime_id

from .lp import run, term, text

FILES = ("qualification.lp",)
UPSTREAM = (
    "evaluated/2",
    "examined/2",
    "fails/4",
    "lacks_requested_class/2",
    "mode_reason/3",
    "supports/2",
    "first_compatible_entry/3",
    "size_reason/3",
    "range_unsupported/3",
    "runtime_score/3",
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


def builder():
    """Query 1 evaluates model M (format safetensors)."""
    b = FactBuilder()
    f = b.fact
    f.model(M)
    f.evaluated(1, M)
    f.model_declares(M, const("format"), "safetensors")
    return b


def entries(b, auto_selects, r=RT):
    """Entries of r, one per autoSelect value (None: absent)."""
    for i, auto in enumerate(auto_selects):
        b.fact.entry(r, i, term(f"sig({i})"), term("w(1)"))
        if auto is not None:
            b.fact.entry_auto_select(r, i, const(auto))


def score(b, value, r=RT):
    b.fact.runtime_score(1, r, b.exact(value))


def failing(b, checks):
    """Upstream facts that make RT fail exactly `checks` (one entry, index 0).
    A runtime failing Q5 does not support the model: it is examined, and
    fails Q5, only as a candidate of explanation.lp."""
    f = b.fact
    entries(b, ["true" if "q7" not in checks else None])
    if "q2" in checks:
        f.runtime_disabled(RT)
    if "q3" in checks:
        f.lacks_requested_class(1, RT)
    if "q4" in checks:
        f.mode_reason(1, RT, term(MODE))
    if "q5" in checks:
        f.examined(1, RT)
        f.fails(1, RT, const("q5"), term(REASONS["q5"]))
    else:
        f.supports(1, RT)
    if "q6" in checks:
        f.size_reason(1, RT, term(SIZE))
    score(b, 0 if "q8" in checks else 6)


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


def test_q5_the_examined_runtimes_are_the_supporting_ones():
    """Q5 first: qualification.lp alone (the rank program) examines exactly
    the runtimes that support the model; one that does not is never checked,
    so it has no failed check at all (it cannot qualify anyway)."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder()
    entries(b, ["true"])
    entries(b, [None], r=other)
    b.fact.runtime_disabled(other)
    b.fact.supports(1, RT)
    score(b, 6)
    answer = solve(b)
    assert answer.rows("examined") == {("1", R)}
    assert answer.rows("fails") == set()
    assert answer.rows("qualifies") == {("1", R)}


def test_q9_only_a_supporting_runtime_qualifies():
    """Q5, Q9: an examined runtime that passes every check qualifies only if
    it supports the model (explanation.lp gives its Q5 failure)."""
    b = builder()
    entries(b, ["true"])
    b.fact.examined(1, RT)
    score(b, 6)
    assert solve(b).rows("qualifies") == set()


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
    entries(b, auto_selects)
    b.fact.supports(1, RT)
    b.fact.first_compatible_entry(1, RT, len(auto_selects) - 1)
    score(b, 6)
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
    entries(b, auto_selects)
    if first_compatible is not None:
        b.fact.supports(1, RT)
        b.fact.first_compatible_entry(1, RT, first_compatible)
    else:  # a candidate of explanation.lp, failing Q5 there
        b.fact.examined(1, RT)
        b.fact.fails(1, RT, const("q5"), term(fails["q5"]))
    score(b, 0)
    answer = solve(b)
    assert answer.rows("fails") == {("1", R, c, reason) for c, reason in fails.items()}
    first = min(fails, key=CHECKS.index)
    assert answer.rows("first_failure") == {("1", R, first, fails[first])}


def test_q8_passes_with_a_positive_score():
    b = builder()
    entries(b, ["true", None])
    b.fact.supports(1, RT)
    b.fact.first_compatible_entry(1, RT, 1)
    score(b, 6)
    assert solve(b).rows("qualifies") == {("1", R)}


def test_q8_first_entry_wanted_only_for_a_zero_score():
    """Q16 in the rank program: the first compatible entry decides only Q8's
    reason (E14 rows 7, 8), so it is wanted only for the supporting runtimes
    that score 0 (explanation.lp wants it for every supporting runtime)."""
    zero = runtime_id("ClusterServingRuntime", None, "zero")
    unsupported = runtime_id("ClusterServingRuntime", None, "unsupported")
    b = builder()
    for r, supports, value in ((RT, True, 6), (zero, True, 0), (unsupported, False, 0)):
        entries(b, ["true"], r=r)
        if supports:
            b.fact.supports(1, r)
        else:
            b.fact.examined(1, r)
        score(b, value, r=r)
    assert solve(b).rows("first_entry_wanted") == {("1", text(zero))}


def test_failed_before_marks_every_failed_check_after_the_first():
    """Q2-Q8: a failed check is "before" another by check order; every failed
    check but the first has one before it (explanation.lp lists those as the
    later failures)."""
    b = builder()
    failing(b, ["q2", "q6", "q8"])
    answer = solve(b)
    assert answer.rows("failed_before") == {("1", R, "q6"), ("1", R, "q8")}
    assert answer.rows("first_failure") == {("1", R, "q2", "runtime_disabled")}
