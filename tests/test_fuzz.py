"""The short fuzz run CI makes (scripts/fuzz.py; the long run and its last
result are in docs/reliability.md): broken manifests through the whole CLI,
twice each, and never a crash, a stray stderr line or a difference (E2, I4,
I10, I11)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import fuzz  # noqa: E402


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """Where inputs are written; reproductions of internal errors land here too."""
    directory = tmp_path_factory.mktemp("fuzz")
    saved, tempfile.tempdir = tempfile.tempdir, str(directory)
    yield directory
    tempfile.tempdir = saved


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=fuzz.cases())
def test_E2_I4_I10_short_fuzz_run(scratch, case):
    _, found = fuzz.check(case, scratch, timeout=30)
    assert found == []


def run(code: int = 0, stdout: str = "", stderr: str = "") -> fuzz.Run:
    return fuzz.Run(code, stdout, stderr)


@pytest.mark.parametrize(
    ("first", "second", "problem"),
    [
        (run(0, "a"), run(0, "b"), "nondeterministic: the two runs differ"),
        (run(3, stderr="internal error: x\n"), run(3, stderr="internal error: x\n"), "exit code 3: ['internal error: x']"),
        (run(0, "t", "warning: a\nb\n"), run(0, "t", "warning: a\nb\n"), "stderr line of no known kind: 'b'"),
        (run(1, stderr="warning: w\n"), run(1, stderr="warning: w\n"), "exit 1 without exactly one final error line: ['warning: w']"),
        (run(0, "t", "error: e\n"), run(0, "t", "error: e\n"), "exit 0 with an error line: 'error: e'"),
        (run(1, "t", "error: e\n"), run(1, "t", "error: e\n"), "exit 1 with output on stdout"),
    ],
)
def test_the_fuzz_check_finds_each_kind_of_failure(first, second, problem):
    assert problem in fuzz.problems(first, second)


def test_the_fuzz_check_accepts_a_good_run():
    good = run(1, "", "warning: f.yaml:3: document 1: kind Pod is not read by ome-asp\nerror: clusterbasemodels.ome.io \"m\" not found\n")
    assert fuzz.problems(good, good) == []
    assert fuzz.problems(run(0, "", fuzz.NO_RUNTIMES + "\n"), run(0, "", fuzz.NO_RUNTIMES + "\n")) == []


def test_a_raising_main_is_a_traceback(monkeypatch, scratch):
    def crash(*args, **kwargs):
        raise KeyError("spec")

    monkeypatch.setattr(fuzz.cli, "main", crash)
    case = fuzz.Case(b"kind: Pod\n", ("explain", "--model", "m"))
    _, found = fuzz.check(case, scratch, timeout=30)
    assert found[0] == "traceback: Traceback: KeyError: 'spec'"


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(case=fuzz.git_cases())
def test_compare_git_short_fuzz_run_on_hostile_repositories(tmp_path_factory, case):
    """Issue 38: `scripts/fuzz.py --git` -- attributes, filters, links, a
    submodule, odd names, remote bases -- never a traceback, an internal
    error, a stray line, a difference between two runs, or a filter run."""
    _, found = fuzz.git_check(case, tmp_path_factory.mktemp("repo"))
    assert found == []


def test_the_git_fuzz_check_finds_each_kind_of_failure(tmp_path):
    mark = tmp_path / "filter-ran"
    assert fuzz.git_problems(run(1, "x"), run(1, "x"), mark) == []
    assert fuzz.git_problems(run(2, stderr="error: e\n"), run(2, stderr="error: e\n"), mark) == []
    assert "exit 2 without exactly one final error line, or with output: ['error: e']" in fuzz.git_problems(
        run(2, "out", "error: e\n"), run(2, "out", "error: e\n"), mark)
    assert "exit code 3: ['internal error: x']" in fuzz.git_problems(run(3, stderr="internal error: x\n"),
                                                                    run(3, stderr="internal error: x\n"), mark)
    mark.touch()
    assert fuzz.git_problems(run(0), run(0), mark) == ["a filter program of the repository ran"]
