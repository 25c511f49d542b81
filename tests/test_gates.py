"""The gates .ci/run runs before the tests (D-82), also as tests: a change
that breaks them fails the suite every session runs, not only CI."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT


@pytest.mark.parametrize("gate", [["ruff", "check", "."], ["mypy"]], ids=["ruff", "mypy"])
def test_gate_passes(gate):
    result = subprocess.run([sys.executable, "-m", *gate], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
