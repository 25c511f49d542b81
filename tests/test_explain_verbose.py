"""`explain -v` an operator can act on (issue 24): V8/V9's shape rule stated
in its own words, a warning where versions differ in precision, and no
ranking for a query that ends with an outcome (docs/profiles.md section 0)."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, run_cli

HERE = FIXTURES / "explain-verbose"


def test_a_precision_mismatch_says_the_part_counts_V8():
    run = run_cli("explain", "--model", "llama", "-f", str(HERE / "versions.yaml"), "-v")
    assert run.code == 0
    line = next(x for x in run.stdout.splitlines() if "runtime=4.50)" in x and "entry 0" in x)
    # today's text said "must be at most 4.50", which 4.45.0 satisfies
    assert "at most" not in line
    assert "same shape (V8)" in line and "4.50 has 2 parts" in line and "4.45.0 has 3" in line


def test_versions_of_different_precision_are_warned_even_where_equal_matches():
    run = run_cli("explain", "--model", "llama", "-f", str(HERE / "versions.yaml"), "-v")
    warnings = [x for x in run.stderr.splitlines() if x.startswith("warning:")]
    assert len(warnings) == 2
    equal = next(x for x in warnings if "rt-equal" in x)
    assert "4.45 has 2 parts" in equal and "Equal ignores (V5)" in equal
    assert "so its operator does not match" in next(x for x in warnings if "rt-prec" in x)
    # only -v warns: the plain table stays as OME prints it
    assert "warning" not in run_cli("explain", "--model", "llama", "-f", str(HERE / "versions.yaml")).stderr


@pytest.mark.parametrize("profile, outcome", [("code-v0.1.5", "panic"), ("v1.2.2", "unsupported-input")])
def test_an_outcome_prints_no_ranking_but_its_explanation(profile, outcome):
    run = run_cli("explain", "--model", "llama", "-f", str(HERE / "one-bound.yaml"), "-v", "--profile", profile)
    assert run.code == 4
    assert "DETAILS" not in run.stdout and "(rank 1)" not in run.stdout
    assert f"OUTCOME {outcome}" in run.stdout and "rt-min" in run.stdout and "both min and max" in run.stdout
    assert f"error: outcome {outcome}:" in run.stderr
