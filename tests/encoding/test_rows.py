"""rows.lp: a No row of explain and select as one shown atom (E14; issue 26,
D-153): `no_row/5`, its first failed check and reason and a mask of its later
checks, bit K for the check of check_order K; a later check's reason shown
once per program where it is the check's constant one (`shared_reason/2`),
else with its row (`later_reason/4`).

Upstream, given as facts: fails/4 and failed/2 (qualification.lp), as
test_explanation.py gives them; explanation.lp is loaded alongside
(check_order/2, and O8's reading of first_failure/4, which rows.lp derives)
and qualification.lp's constant_reason/2 is given as its facts.
"""

from collections import Counter

import pytest

from ome_asp.solver.facts import FactBuilder, const

from .lp import run, term
from .test_explanation import CHECKS, REASONS, RT, R, fail, failures

FILES = ("compatibility.lp", "explanation.lp", "rows.lp")
UPSTREAM = ("evaluated/2", "runtime_scope/2", "query_scope/2", "version_match/3", "mismatch/4", "failed/2", "fails/4",
            "constant_reason/2")
CONSTANT = {"q3": REASONS["q3"], "q7": REASONS["q7"], "q8": REASONS["q8"]}  # qualification.lp's constant_reason/2


def solve(b):
    for check, reason in CONSTANT.items():
        b.fact.constant_reason(const(check), term(reason))
    return run(FILES, b, upstream=UPSTREAM)


@pytest.mark.parametrize(
    "checks",
    [pytest.param(CHECKS[k:], id=f"from-{CHECKS[k]}") for k in range(7)]
    + [pytest.param([c], id=f"only-{c}") for c in CHECKS]
    + [pytest.param(checks, id="-".join(checks)) for checks in (["q3", "q6"], ["q5", "q8"], ["q2", "q4", "q7"])]
    + [pytest.param([], id="none")],
)
def test_e14_a_no_row_is_one_atom_with_a_mask_of_its_later_checks(checks):
    """E14: the row's first failed check in the order Q2-Q8 with its reason,
    and 2^K summed over its later checks qK; a runtime failing nothing has no
    row atom."""
    answer = solve(failures(*checks))
    first = min(checks, key=CHECKS.index) if checks else None
    mask = sum(2 ** int(c[1]) for c in checks if c != first)
    assert answer.rows("no_row") == (set() if first is None else {("1", R, first, REASONS[first], str(mask))})


@pytest.mark.parametrize("checks", [pytest.param(CHECKS, id="all"), pytest.param(["q6", "q8"], id="q6-q8")])
def test_e14_a_later_check_shows_its_reason_with_the_row_unless_constant(checks):
    """A later check with its constant reason (Q3, Q7, Q8's row 8) is shown
    once by its check; any other later reason (Q4, Q5, Q6 here) with the
    row; the first check's reason is the row atom's, never shown apart."""
    answer = solve(failures(*checks))
    later = checks[1:]
    assert answer.rows("shared_reason") == {(c, CONSTANT[c]) for c in later if c in CONSTANT}
    assert answer.rows("later_reason") == {("1", R, c, REASONS[c]) for c in later if c not in CONSTANT}


def test_e14_a_later_q8_of_row_7_is_the_rows_own():
    """E14 row 7's reason names the model's format: not Q8's constant one,
    so a row that fails Q8 later with it shows it with the row."""
    row7 = 'matching_entry_not_auto_selected("safetensors")'
    answer = solve(failures("q6", "q8", reasons={"q8": row7}))
    assert answer.rows("later_reason") == {("1", R, "q8", row7)}
    assert answer.rows("shared_reason") == set()


def test_e14_a_constant_reason_is_shown_once_for_every_row_that_has_it():
    """Many rows failing Q7 and Q8 after Q5 show the two constant reasons
    once (issue 26: an atom per program, not per row)."""
    b = FactBuilder(schema=None)
    rows = [RT] + [term(f'csr("rt{i}")') for i in range(3)]
    for q in (1, 2):
        for r in rows:
            fail(b, r, "q5", "q7", "q8", q=q)
    answer = solve(b)
    assert len(answer.rows("no_row")) == 8
    assert answer.rows("shared_reason") == {("q7", REASONS["q7"]), ("q8", REASONS["q8"])}
    assert answer.rows("later_reason") == set()


def test_e14_grounds_one_mask_per_row_not_an_atom_per_later_check():
    """Issue 40 (D-301): a row failing every check grounds its mask, its row
    atom and its first failure, besides the later reasons shown (Q4-Q6 here)
    and O8's two atoms, whatever its number of failed checks. Fails with E14
    derived by pairing the row's failed checks (failures.lp, find's):
    failed_before/3 and later_failure/4, 6 atoms each for this row."""
    answer = solve(failures(*CHECKS))
    derived = Counter(s.name for s in answer.symbols if R in map(str, s.arguments)) - Counter(fails=7, failed=1)
    assert derived == Counter(failed_mask=1, no_row=1, first_failure=1, later_reason=3, excluded_candidate=1, excluded_in_message=1)
