"""Smoke run of the benchmark suite on tiny sizes (the full run is
`python benchmarks/run.py`, not part of the tests)."""

import re
import subprocess
import sys

from conftest import ROOT


def test_benchmark_suite_runs_on_tiny_sizes():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    for goal in ("G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8"):
        assert f"| {goal} |" in result.stdout
    assert "| 3 × 20 | rank |" in result.stdout and "| 3 × 20 | explain |" in result.stdout


def test_worlds_benchmark_runs_on_tiny_sizes():
    """benchmarks/worlds.py (issue 12's T1-T5) on tiny sizes, print only."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "worlds.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    for goal in ("T1", "T2", "T3", "T4", "T5"):
        assert f"| {goal} |" in result.stdout
    # T3's lever states this run's profile, counted (it named work done since, D-130, D-135)
    (lever,) = [line for line in result.stdout.splitlines() if line.startswith("- T3: ")]
    assert re.search(r"\. [\d,]+ Python calls per case in the profiled batch .* makes them: .*input/loader\.py [\d,]+", lever)
