"""The integrations the repository ships (issue 37): the pre-commit hooks
(.pre-commit-hooks.yaml), run by pre-commit itself on a temporary repository,
and the composite GitHub Action (action.yml), whose inputs are checked and
whose command step is run as the runner would run it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
ADMISSION = FIXTURES / "steer" / "admission" / "manifests.yaml"
_INPUT = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


# --- the GitHub Action ------------------------------------------------------------------


def test_the_action_declares_exactly_the_inputs_it_reads():
    """Every input read is declared and every declared one read (fails with
    an input renamed in one place), each described, required ones without a
    default and optional ones with one."""
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    inputs = ACTION["inputs"]
    assert set(_INPUT.findall(text)) == set(inputs)
    for name, spec in inputs.items():
        assert spec["description"], name
        assert ("default" in spec) != spec.get("required", False), name
    assert ACTION["runs"]["using"] == "composite"


def test_no_input_is_pasted_into_a_script():
    """Inputs reach `run` scripts through `env` only (a workflow expression
    inside a script is evaluated before the shell sees it: script injection);
    every script names its shell, as composite actions require."""
    steps = ACTION["runs"]["steps"]
    scripts = [step for step in steps if "run" in step]
    assert scripts
    for step in scripts:
        assert "${{" not in step["run"] and step["shell"] == "bash", step.get("name")
    ids = {step.get("id") for step in steps}
    for output in ACTION["outputs"].values():
        assert re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.[\w-]+ \}\}", output["value"])[1] in ids


def run_step(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, str]:
    """The action's command step, run by bash as the runner runs it, with
    the inputs' environment; and what it wrote to $GITHUB_OUTPUT."""
    [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "run"]
    outputs = tmp_path / "github_output"
    outputs.write_text("")
    variables = {name: _INPUT.sub(lambda m: env.get(m[1].replace("-", "_"), ""), value)
                 for name, value in step["env"].items()}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # ome-asp and python of this venv
    run = subprocess.run(["bash", "-e", "-c", step["run"]], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, **variables, "GITHUB_OUTPUT": str(outputs), "PATH": path})
    return run, outputs.read_text()


def test_the_action_runs_the_command_and_reports_its_exit_code(tmp_path):
    """The arguments are split as a shell splits words (a quoted path with a
    space stays one argument) and never evaluated (`$(…)` stays text); the
    report goes to output-file; exit-code is ome-asp's."""
    (tmp_path / "my catalog").mkdir()
    shutil.copy(ADMISSION, tmp_path / "my catalog" / "m.yaml")
    run, outputs = run_step(tmp_path, args="admit -f 'my catalog' -o github", output_file="report.txt")
    assert run.returncode == 1, run.stderr
    assert outputs == "exit-code=1\n"
    lines = (tmp_path / "report.txt").read_text().splitlines()
    assert len(lines) == 3 and all(line.startswith("::error file=my catalog/m.yaml,line=") for line in lines)
    run, outputs = run_step(tmp_path, args="admit -f '$(touch pwned)'")
    assert (run.returncode, outputs) == (2, "exit-code=2\n") and not (tmp_path / "pwned").exists()


# --- docs/compare.md's profile agreement ---------------------------------------------------


def test_the_profile_agreement_step_reports_where_the_profiles_disagree():
    """The job's profiles step (docs/compare.md), run as written on
    fixtures/compare/catalog-pr/after for config/runtimes and models: it
    names the model the two releases serve differently and the setting that
    makes it, and exits 1 (fails when the step is dropped from the docs)."""
    import shlex

    from conftest import run_cli

    text = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    command = re.search(r"ome-asp (compare [^\n]*--ome-versions[^\n]*)\\\n\s*([^>\n]*)>", text)
    assert command, "docs/compare.md has no profiles step"
    argv = shlex.split(command[1] + command[2])[1:]
    catalog = FIXTURES / "compare" / "catalog-pr"
    argv = [{"config/runtimes": str(catalog / "after" / "runtimes"), "config/models": str(catalog / "models")}.get(a, a)
            for a in argv]
    run = run_cli("compare", *argv)
    assert run.code == 1, run.stderr
    assert "mistral-7b-instruct" in run.stdout and "absent_weight" in run.stdout
    assert "| moved | 1 |" in run.stdout and "| keep their answer | 5 |" in run.stdout


# --- pre-commit ---------------------------------------------------------------------------


def test_the_hooks_read_the_manifests_their_args_name():
    """Selection and admission read the whole catalog: no hook is handed only
    the changed files (fails with pass_filenames left on)."""
    assert {hook["id"] for hook in HOOKS} == {"ome-asp-admit", "ome-asp-models"}
    for hook in HOOKS:
        assert hook["language"] == "python" and hook["pass_filenames"] is False
        assert hook["entry"].startswith("ome-asp ")


def git(*argv: str, cwd: Path) -> str:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *identity, *argv], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.mark.slow
def test_pre_commit_runs_the_hooks_on_a_repository(tmp_path):
    """pre-commit installs ome-asp from a copy of this repository (its tracked
    files, committed) and runs ome-asp-admit and
    ome-asp-models on a catalog: both fail on the denied runtimes, naming
    them; with the catalog fixed, both pass. Needs PyPI (pre-commit
    installs the hook's environment with pip)."""
    project = tmp_path / "ome-asp"
    project.mkdir()
    # every tracked file, as the working tree has it: the package's data (encoding/, docs/,
    # fixtures/cases/: pyproject's package-dir) is whatever the build reads
    for name in git("ls-files", "-z", cwd=ROOT).split("\0"):
        if name and (ROOT / name).is_file():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, project / name)
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "ome-asp", cwd=project)
    rev = git("rev-parse", "HEAD", cwd=project).strip()

    user = tmp_path / "catalog"
    (user / "config").mkdir(parents=True)
    shutil.copy(ADMISSION, user / "config" / "manifests.yaml")
    hooks = [{"id": hook["id"], "args": ["-f", "config"]} for hook in HOOKS]
    (user / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": str(project), "rev": rev, "hooks": hooks}]}))
    git("init", "-q", cwd=user)
    git("add", "-A", cwd=user)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

    def pre_commit() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=user, env=env,
                              capture_output=True, text=True)

    run = pre_commit()
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ClusterServingRuntime rt-w4: DENIED: different priorities" in run.stdout
    assert "::error file=config/manifests.yaml,line=35,title=admission%3A ClusterServingRuntime rt-w4::" in run.stdout
    documents = [d for d in yaml.safe_load_all((user / "config" / "manifests.yaml").read_text())
                 if d["metadata"]["name"] not in ("rt-w3", "rt-w4", "rt-denied-for-good")]
    (user / "config" / "manifests.yaml").write_text(yaml.safe_dump_all(documents))
    run = pre_commit()
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("Passed") == 2
