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
from test_ci_formats import catalog_repository

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
    assert {hook["id"] for hook in HOOKS} == {"ome-asp-admit", "ome-asp-models", "ome-asp-compare"}
    for hook in HOOKS:
        assert hook["language"] == "python" and hook["pass_filenames"] is False
        assert hook["entry"].startswith("ome-asp ")


def git(*argv: str, cwd: Path) -> str:
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    return subprocess.run(["git", *identity, *argv], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def hooks_repository(tmp_path_factory) -> tuple[Path, str, dict]:
    """A copy of this repository (its tracked files, committed) for
    pre-commit to install ome-asp from, its revision, and
    pre-commit's environment: one store, so ome-asp is pip-installed once
    for the module's tests."""
    tmp_path = tmp_path_factory.mktemp("hooks")
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
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    return project, rev, env


def pre_commit(user: Path, env: dict, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", *argv], cwd=user, env=env, capture_output=True,
                          text=True)


def use_hooks(user: Path, hooks_repository: tuple[Path, str, dict], hooks: list[dict]) -> None:
    project, rev, _ = hooks_repository
    (user / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": str(project), "rev": rev, "hooks": hooks}]}))


@pytest.mark.slow
def test_pre_commit_runs_the_hooks_on_a_repository(tmp_path, hooks_repository):
    """pre-commit installs ome-asp from a copy of this repository and runs
    ome-asp-admit and ome-asp-models on a catalog: both fail on the denied
    runtimes, naming them; with the catalog fixed, both pass. Needs PyPI
    (pre-commit installs the hook's environment with pip)."""
    env = hooks_repository[2]
    user = tmp_path / "catalog"
    (user / "config").mkdir(parents=True)
    shutil.copy(ADMISSION, user / "config" / "manifests.yaml")
    use_hooks(user, hooks_repository, [{"id": hook, "args": ["-f", "config"]} for hook in ("ome-asp-admit", "ome-asp-models")])
    git("init", "-q", cwd=user)
    git("add", "-A", cwd=user)

    run = pre_commit(user, env, "--all-files")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "ClusterServingRuntime rt-w4: DENIED: different priorities" in run.stdout
    assert "::error file=config/manifests.yaml,line=35,title=admission%3A ClusterServingRuntime rt-w4::" in run.stdout
    documents = [d for d in yaml.safe_load_all((user / "config" / "manifests.yaml").read_text())
                 if d["metadata"]["name"] not in ("rt-w3", "rt-w4", "rt-denied-for-good")]
    (user / "config" / "manifests.yaml").write_text(yaml.safe_dump_all(documents))
    run = pre_commit(user, env, "--all-files")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("Passed") == 2


@pytest.mark.slow
def test_pre_commit_compares_the_commit_with_head(tmp_path, hooks_repository):
    """ome-asp-compare (`compare --git HEAD`) on a commit being made: the
    staged change of fixtures/compare/catalog-pr, before committed, after
    staged, fails it on the model that loses its runtime, at the staged
    file's line (srt-qwen2.yaml's `autoSelect: false`), and shows the moves
    as warnings; with srt-qwen2.yaml's change taken back, it passes and
    still shows them (verbose). An unstaged change is not the commit's:
    pre-commit sets it aside, so the hook does not see it."""
    env = hooks_repository[2]
    user = tmp_path / "catalog"
    user.mkdir()
    git("init", "-q", cwd=user)
    use_hooks(user, hooks_repository, [{"id": "ome-asp-compare", "args": ["-k", "config"]}])
    catalog_repository(user)  # before, then after, committed
    git("reset", "-q", "--soft", "HEAD~1", cwd=user)  # after is staged on top of before: the commit being made

    run = pre_commit(user, env)
    assert run.returncode == 1, run.stdout + run.stderr
    assert ("::error file=config/runtimes/srt-qwen2.yaml,line=14,title=lost%3A --model deepseek-r1-distill-qwen-14b "
            "-n default::ClusterServingRuntime srt-qwen2 (before) → no runtime (after)") in run.stdout
    assert run.stdout.count("::warning ") == 4

    qwen = user / "config" / "runtimes" / "srt-qwen2.yaml"
    shutil.copy(FIXTURES / "compare" / "catalog-pr" / "before" / "runtimes" / qwen.name, qwen)
    put_back = qwen.read_bytes()
    run = pre_commit(user, env)  # put back in the working tree only: the commit still loses the model
    assert run.returncode == 1 and "::error " in run.stdout, run.stdout + run.stderr
    assert qwen.read_bytes() == put_back  # pre-commit restored the unstaged file
    git("add", str(qwen), cwd=user)
    run = pre_commit(user, env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "::error" not in run.stdout and run.stdout.count("::warning ") == 4
