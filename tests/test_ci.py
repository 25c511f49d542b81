"""CI runs exactly the README's test command (the project's rule): .ci/run's
last line is the pytest part of the command the README gives newcomers."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"Run the tests.*?```sh\n(.*?)\n```", readme, re.S).group(1)
    ci_steps = [line for line in (ROOT / ".ci/run").read_text().splitlines() if line and not line.startswith("#")]
    assert command.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' && ")
    assert command.rsplit(" && ", 1)[1] == ci_steps[-1]
