"""clingo is pinned to the minor versions the private-API path (solver/answer.py's
_tuple_text, solver/worlds.py's AST rewrite) is tested on: pyproject.toml's
bound and the import-time check agree, and another version stops every command
with its one `error:` line and exit code, not a traceback (issue 23, item 7)."""

from __future__ import annotations

import re
import subprocess
import sys

import clingo
import pytest
from conftest import ROOT

from ome_asp.errors import UnsupportedClingo
from ome_asp.solver import TESTED_CLINGO, check_clingo


def test_the_installed_clingo_is_a_tested_one():
    check_clingo(clingo.__version__)


@pytest.mark.parametrize("version", ["5.6.2", "5.9.0", "6.0.0"])
def test_another_minor_version_is_refused(version):
    with pytest.raises(UnsupportedClingo, match=rf"^ome-asp needs clingo 5\.7 or 5\.8 \(installed: {re.escape(version)}\)"):
        check_clingo(version)


def test_pyproject_pins_the_tested_versions():
    (low, high), = re.findall(r'^    "clingo>=(\d+\.\d+),<(\d+\.\d+)",$', (ROOT / "pyproject.toml").read_text(), re.M)
    first, last = TESTED_CLINGO[0], TESTED_CLINGO[-1]
    assert (low, high) == (f"{first[0]}.{first[1]}", f"{last[0]}.{last[1] + 1}")


@pytest.mark.parametrize(("command", "code"), [("explain", 1), ("select", 2)])  # E2: explain's errors exit 1
def test_a_command_under_another_clingo_is_one_error_line(command, code):
    program = ("import sys, clingo; clingo.__version__ = '5.9.0'; from ome_asp.console import main;"
               f"sys.argv = ['ome-asp', '{command}', '--help']; main()")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT)
    assert (result.returncode, result.stdout) == (code, "")
    assert result.stderr == "error: ome-asp needs clingo 5.7 or 5.8 (installed: 5.9.0): pip install 'clingo>=5.7,<5.9'\n"
