"""qualification.lp on its own: the checks Q2-Q8, every failed check with
its reason (E14), whether a runtime failed any (failed/2: it qualifies, Q9,
when examined and failing none), and which pairs need their first compatible
entry (Q8's reason, E14 rows 7 and 8). Which failed check is first (E14's
REASON) and which are later is explanation.lp's (test_explanation.py): the
rank program does not ground them.

The checks run on the examined pairs: compatibility.lp examines the runtimes
that support the model (Q5); explanation.lp adds every candidate and derives
the Q5 failure (test_explanation.py). Here both are given as facts:
examined/2 for every runtime checked, fails/4 for the Q5 failure of a
candidate that does not support the model. Qualification itself is derived
where it is read: ordering.lp's rank key (the rank program; two tests here
load ordering.lp) and explanation.lp's qualifies/2 (test_explanation.py).

Upstream, given as facts: evaluated/2 (lookup.lp), examined/2
(compatibility.lp, explanation.lp), fails/4 (explanation.lp),
lacks_requested_class/2 (accelerators.lp), mode_reason/3 (deployment.lp),
first_compatible_entry/3 (compatibility.lp), size_reason/3 and
range_unsupported/3 (sizes.lp), score_zero/2 (scoring.lp: the examined pair's
score is not above 0, S1).
"""

import pytest

from ome_asp.solver.facts import FactBuilder, const, runtime_id

from .lp import SCOPES, run, scoped, term, text

FILES = ("qualification.lp",)
UPSTREAM = (
    "evaluated/2",
    "examined/2",
    "fails/4",
    "lacks_requested_class/2",
    "mode_reason/3",
    "first_compatible_entry/3",
    "size_reason/3",
    "range_unsupported/3",
    "score_zero/2",
)
# Q9 in the rank program: ordering.lp's rank key, from its own upstream
# (runtime/1 from admission.lp; query_view/2 and view_score/3 from
# scoring.lp; sized_query/3, runtime_distance/2 and sized_distance/3 from
# sizes.lp).
Q9_FILES = FILES + ("ordering.lp",)
Q9_UPSTREAM = UPSTREAM + (
    "runtime/1", "query_view/2", "view_score/3", "sized_query/3", "runtime_distance/2", "sized_distance/3",
) + SCOPES

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
    b = FactBuilder(schema=None)
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


def score_zero(b, r=RT):
    """r's score for query 1 is not above 0 (Q8 fails)."""
    b.fact.score_zero(1, r)


def failing(b, checks):
    """Upstream facts that make RT fail exactly `checks` (one entry, index 0).
    RT is examined; a runtime failing Q5 does not support the model: it is
    examined, and fails Q5, only as a candidate of explanation.lp."""
    f = b.fact
    entries(b, ["true" if "q7" not in checks else None])
    f.examined(1, RT)
    if "q2" in checks:
        f.runtime_disabled(RT)
    if "q3" in checks:
        f.lacks_requested_class(1, RT)
    if "q4" in checks:
        f.mode_reason(1, RT, term(MODE))
    if "q5" in checks:
        f.fails(1, RT, const("q5"), term(REASONS["q5"]))
    if "q6" in checks:
        f.size_reason(1, RT, term(SIZE))
    if "q8" in checks:
        score_zero(b)


def solve(b):
    return run(FILES, b, upstream=UPSTREAM)


def ranked(b, runtimes=(RT,)):
    """qualification.lp with ordering.lp: each of `runtimes` (name rank k)
    scores 6 in query 1's score view, for a model without a size; a runtime
    qualifies iff it gets a rank key."""
    view = term("view(1)")
    b.fact.query_view(1, view)
    for k, r in enumerate(runtimes):
        b.fact.runtime(r)
        b.fact.runtime_name_rank(r, k)
        b.fact.view_score(view, r, b.exact(6))
    scoped(b, (1,), runtimes)
    return run(Q9_FILES, b, upstream=Q9_UPSTREAM)


@pytest.mark.parametrize(
    "checks",
    [pytest.param(CHECKS[k:], id=f"from-{CHECKS[k]}") for k in range(7)]
    + [pytest.param([c], id=f"only-{c}") for c in CHECKS]
    + [pytest.param(["q3", "q6"], id="q3-q6"), pytest.param(["q5", "q8"], id="q5-q8"), pytest.param(["q6", "q7"], id="q6-q7")]
    + [pytest.param([], id="none")],
)
def test_q2_q8_every_failed_check_with_its_reason(checks):
    """Q2-Q8: each check is evaluated on its own, so every failed check is
    known with its E14 reason, not only the first; a candidate qualifies iff
    none fails (Q9: failed/2, one atom however many fail, is what ordering.lp
    and explanation.lp negate)."""
    b = builder()
    failing(b, checks)
    answer = solve(b)
    assert answer.rows("fails") == {("1", R, c, REASONS[c]) for c in checks}
    assert answer.rows("failed") == ({("1", R)} if checks else set())


def test_q5_only_the_examined_runtimes_are_checked():
    """Q5 first: the checks run on the examined pairs only -- in the rank
    program exactly the runtimes that support the model (compatibility.lp);
    one that is not examined is never checked, so it has no failed check at
    all (it cannot qualify anyway), however many checks it would fail."""
    other = runtime_id("ClusterServingRuntime", None, "other")
    b = builder()
    entries(b, ["true"])
    entries(b, [None], r=other)
    b.fact.runtime_disabled(other)
    b.fact.examined(1, RT)
    answer = solve(b)
    assert answer.rows("fails") == set()
    assert answer.rows("failed") == set()


def test_q9_a_runtime_qualifies_iff_examined_and_no_check_fails():
    """Q5, Q9 in the rank program (with ordering.lp): an examined runtime
    that passes every check qualifies (it gets a rank key); one failing a
    check does not -- a candidate that does not support the model fails Q5
    (explanation.lp) -- nor does one that is not examined."""
    unsupported = runtime_id("ClusterServingRuntime", None, "unsupported")
    disabled = runtime_id("ClusterServingRuntime", None, "disabled")
    unexamined = runtime_id("ClusterServingRuntime", None, "unexamined")
    runtimes = (RT, unsupported, disabled, unexamined)
    b = builder()
    for r in runtimes:
        entries(b, ["true"], r=r)
    for r in (RT, unsupported, disabled):
        b.fact.examined(1, r)
    b.fact.fails(1, unsupported, const("q5"), term(REASONS["q5"]))
    b.fact.runtime_disabled(disabled)
    assert {row[:2] for row in ranked(b, runtimes).rows("rank_key")} == {("1", R)}


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
    b.fact.examined(1, RT)
    b.fact.first_compatible_entry(1, RT, len(auto_selects) - 1)
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
    autoSelect: true (otherwise, and without a compatible entry, row 8).
    Which of the failed checks is first is explanation.lp's
    (test_explanation.py's test_e14_rows_7_and_8_in_check_order)."""
    b = builder()
    entries(b, auto_selects)
    b.fact.examined(1, RT)
    if first_compatible is not None:
        b.fact.first_compatible_entry(1, RT, first_compatible)
    else:  # a candidate of explanation.lp, failing Q5 there
        b.fact.fails(1, RT, const("q5"), term(fails["q5"]))
    score_zero(b)
    answer = solve(b)
    assert answer.rows("fails") == {("1", R, c, reason) for c, reason in fails.items()}
    assert answer.rows("failed") == {("1", R)}


def test_q8_passes_with_a_positive_score():
    """Q8, Q9: with a score above 0 (no score_zero/2) and the gate open, no
    check fails and the runtime qualifies (its rank key, ordering.lp)."""
    b = builder()
    entries(b, ["true", None])
    b.fact.examined(1, RT)
    b.fact.first_compatible_entry(1, RT, 1)
    answer = ranked(b)
    assert answer.rows("fails") == set()
    assert {row[:2] for row in answer.rows("rank_key")} == {("1", R)}


def test_q8_first_entry_wanted_only_for_a_zero_score():
    """Q16 in the rank program: the first compatible entry decides only Q8's
    reason (E14 rows 7, 8), so it is wanted only for the examined runtimes
    that score 0 (score_zero/2; explanation.lp wants it for every supporting
    runtime), not for one scoring above 0 nor for one not examined."""
    zero = runtime_id("ClusterServingRuntime", None, "zero")
    unexamined = runtime_id("ClusterServingRuntime", None, "unexamined")
    b = builder()
    for r in (RT, zero, unexamined):
        entries(b, ["true"], r=r)
    b.fact.examined(1, RT)
    b.fact.examined(1, zero)
    score_zero(b, r=zero)
    assert solve(b).rows("first_entry_wanted") == {("1", text(zero))}


@pytest.mark.parametrize(
    ("checks", "ends"),
    [
        pytest.param([], True, id="reaches-z3"),
        pytest.param(["q7", "q8"], True, id="later-failures-do-not-matter"),
        pytest.param(["q2"], False, id="q2-first"),
        pytest.param(["q4"], False, id="q4-first"),
        pytest.param(["q5"], False, id="q5-candidate-not-supporting"),
    ],
)
def test_z3_outcome_only_for_a_runtime_reaching_z3(checks, ends):
    """Z3 on v1.2.2 and code-v0.1.5 (docs/profiles.md section 0): a range that
    cannot be evaluated ends the query only for a runtime that reaches Z3,
    having passed Q2-Q5 (a candidate of explanation.lp failing Q5 does not)."""
    b = builder()
    failing(b, checks)
    b.fact.range_unsupported(1, RT, const("panic"))
    assert solve(b).rows("query_outcome") == ({("1", "panic", R)} if ends else set())
