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

IMPORT_UNDER = "import sys, clingo; clingo.__version__ = sys.argv[1]; import ome_asp.solver"


@pytest.mark.parametrize("version", ["5.7.0", "5.7.9", "5.8.0", "5.8.99", clingo.__version__])
def test_importing_the_solver_accepts_a_tested_version(version):
    """The check the package runs at import, run in a process of its own under
    each tested minor version (issue 39: here it ran only in this process,
    whose collection had already passed it, so it could not fail on its own)."""
    result = subprocess.run([sys.executable, "-c", IMPORT_UNDER, version], capture_output=True, text=True, cwd=ROOT)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize("version", ["5.6.2", "5.9.0", "6.7.0"])
def test_importing_the_solver_refuses_another_version(version):
    result = subprocess.run([sys.executable, "-c", IMPORT_UNDER, version], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == ("ome_asp.errors.UnsupportedClingo: ome-asp needs clingo 5.7 or 5.8 "
                                              f"(installed: {version}): pip install 'clingo>=5.7,<5.9'")


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
