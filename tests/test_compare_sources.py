"""compare's two snapshots (issue 25): read by explain's readers from every
source explain reads (files, directories, kustomizations, stdin, a live
cluster) and from two git revisions without a checkout; a flag compare does
not read is a usage error, never ignored; a name in neither snapshot is
explain's error; an empty side is an error unless --allow-empty."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, run_cli
from kube_server import KubeServer
from manifests import entry, model, runtime
from test_sources import kubectl_env  # noqa: F401 (a fixture)

WORKED = FIXTURES / "worked-example"
DOCUMENTS = [d for d in yaml.safe_load_all((WORKED / "manifests.yaml").read_text()) if d]


def write(path: Path, documents) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return str(path)


def two_runtimes() -> list[dict]:
    """a (priority 2) wins over b (priority 1), O2."""
    return [model("m"), runtime("a", supportedModelFormats=[entry(priority=2)]),
            runtime("b", supportedModelFormats=[entry(priority=1)])]


def moved() -> list[dict]:
    """two_runtimes with b's priority 3: m moves from a to b."""
    after = two_runtimes()
    after[2]["spec"]["supportedModelFormats"][0]["priority"] = 3
    return after


def selected(result) -> tuple:
    assert result.code in (0, 1), result.stderr
    items = json.loads(result.stdout)["items"]
    return tuple((i["before"]["selected"]["name"], i["after"]["selected"]["name"]) for i in items)


# --- never "nothing changed" without looking ----------------------------------------


@pytest.mark.parametrize("flags, message", [
    (("-k", "/nonexistent"), "error: -k applies to --profiles/--ome-versions and --git; give each snapshot with --before-k DIR/--after-k DIR\n"),
    (("--from-cluster",), "error: --from-cluster applies to --profiles/--ome-versions and --git; give each snapshot "
                          "with --before-from-cluster/--after-from-cluster\n"),
    (("--context", "ops"), "error: --context, --kubeconfig and --request-timeout need --before-from-cluster or "
                           "--after-from-cluster\n"),
])
def test_a_flag_compare_does_not_read_is_a_usage_error(tmp_path, flags, message):
    """Issue 25: `-k /nonexistent` was ignored ("0 of 0 models keep their runtime", exit 0)."""
    path = write(tmp_path / "m.yaml", two_runtimes())
    result = run_cli("compare", "--before", path, "--after", path, "--all-models", *flags)
    assert (result.code, result.stderr) == (2, message)


def test_profiles_read_k_and_no_longer_compare_zero_runtimes(tmp_path):
    """Issue 25: `--profiles` with -k compared zero runtimes and said all keep theirs."""
    write(tmp_path / "k" / "m.yaml", two_runtimes())
    (tmp_path / "k" / "kustomization.yaml").write_text("resources: [m.yaml]\n")
    result = run_cli("compare", "-k", str(tmp_path / "k"), "--profiles", "v1.3,v1.2.2", "--all-models")
    assert (result.code, result.stdout.splitlines()[-1]) == (0, "1 of 1 models keep their runtime."), result.stderr
    assert run_cli("compare", "-k", str(tmp_path / "missing"), "--profiles", "v1.3,v1.2.2", "--all-models").code == 2


@pytest.mark.parametrize("target, message", [
    (("--model", "no-such-model"), 'error: clusterbasemodels.ome.io "no-such-model" not found\n'),
    (("--isvc", "no-such-isvc"), 'error: inferenceservices.ome.io "no-such-isvc" not found\n'),
])
def test_a_name_in_neither_snapshot_is_explains_error(tmp_path, target, message):
    """Issue 25, issue 28 item 4: a misspelt --model printed "1 of 1 models keep their runtime", exit 0."""
    path = write(tmp_path / "m.yaml", two_runtimes())
    explain = run_cli("explain", "-f", path, *target)
    result = run_cli("compare", "--before", path, "--after", write(tmp_path / "n.yaml", moved()), *target)
    assert explain.stderr.endswith(message) and result.stderr.endswith(message)
    assert (explain.code, result.code) == (1, 2)  # compare's 1 is "a selection changed" (D-102)


def test_a_model_created_on_one_side_is_compared_not_an_error(tmp_path):
    before = write(tmp_path / "b.yaml", two_runtimes()[1:])
    result = run_cli("compare", "--before", before, "--after", write(tmp_path / "a.yaml", two_runtimes()),
                     "--model", "m", "--allow-empty", "-o", "json")
    (item,) = json.loads(result.stdout)["items"]
    assert result.code == 1 and item["before"]["error"] == 'clusterbasemodels.ome.io "m" not found'


def test_a_snapshot_without_runtimes_or_models_is_an_error_unless_allowed(tmp_path):
    full, empty = write(tmp_path / "m.yaml", two_runtimes()), write(tmp_path / "e.yaml", two_runtimes()[:1])
    result = run_cli("compare", "--before", full, "--after", empty, "--all-models")
    assert (result.code, result.stderr) == (2, "error: the after snapshot has no runtimes; check its paths, "
                                                "or pass --allow-empty to compare it anyway\n")
    allowed = run_cli("compare", "--before", full, "--after", empty, "--all-models", "--allow-empty")
    assert allowed.code == 1
    assert "warning: the after snapshot has no runtimes: every answer on that side is 'no runtime' (--allow-empty)\n" in allowed.stderr


# --- every source explain reads, per side -------------------------------------------


def kustomization(directory: Path, documents) -> str:
    write(directory / "all.yaml", documents)
    (directory / "kustomization.yaml").write_text("resources: [all.yaml]\n")
    (directory / "stale.yaml").write_text(yaml.safe_dump(runtime("stale", supportedModelFormats=[entry(priority=9)])))
    return str(directory)


def test_each_side_from_a_kustomization_stdin_or_a_path_holding_one(tmp_path):
    """A kustomization reads only its resources (stale.yaml, which -f would read, wins otherwise)."""
    before, after = kustomization(tmp_path / "b", two_runtimes()), kustomization(tmp_path / "a", moved())
    expected = (("a", "b"),)
    assert selected(run_cli("compare", "--before-k", before, "--after-k", after, "--all-models", "-o", "json")) == expected
    assert selected(run_cli("compare", "--before", before, "--after", after, "--all-models", "-o", "json")) == expected
    piped = run_cli("compare", "--before", "-", "--after-k", after, "--all-models", "-o", "json",
                    stdin=yaml.safe_dump_all(two_runtimes()).encode())
    assert selected(piped) == expected
    both = run_cli("compare", "--before", "-", "--after", "-", "--all-models")
    assert (both.code, both.stderr) == (2, "error: - (stdin) can be one snapshot only\n")


def test_a_side_from_the_live_cluster_with_context(kubectl_env, tmp_path):  # noqa: F811
    """--before-from-cluster: what kubectl get shows under --context (the worked example),
    against files where team-llama is disabled."""
    after = copy.deepcopy(DOCUMENTS)
    next(d for d in after if d["metadata"]["name"] == "team-llama")["spec"]["disabled"] = True
    with KubeServer(DOCUMENTS) as server:
        kubeconfig = server.kubeconfig(kubectl_env, context="ops")
        result = run_cli("compare", "--before-from-cluster", "--context", "ops", "--kubeconfig", kubeconfig,
                         "--after", write(tmp_path / "after.yaml", after),
                         "--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-o", "json")
    assert selected(result) == (("team-llama", "vllm-llama"),)


def git(repo: Path, *argv: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *argv], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    """A git repository with two commits of a kustomized catalog (config/), the
    second raising b's priority; its working tree then deleted (no checkout is read)."""
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.email", "t@example.com")
    git(top, "config", "user.name", "t")
    for message, documents in (("one", two_runtimes()), ("two", moved())):
        kustomization(top / "config", documents)
        git(top, "add", "-A")
        git(top, "commit", "-q", "-m", message)
    git(top, "tag", "v1", "HEAD~1")
    (top / "config" / "all.yaml").unlink()
    monkeypatch.chdir(top)
    return top


def test_git_reads_both_revisions_without_a_checkout(repo):
    by_k = run_cli("compare", "--git", "v1..main", "-k", "config", "--all-models", "-o", "json")
    by_f = run_cli("compare", "--git", "v1..HEAD", "-f", "config/all.yaml", "--all-models", "-o", "json")
    assert selected(by_k) == selected(by_f) == (("a", "b"),)
    assert git(repo, "status", "--porcelain") == "D config/all.yaml"  # the working tree untouched


@pytest.mark.parametrize("revisions, message", [
    ("--output=x..main", 'error: --git: --output=x is not a revision\n'),
    ("v1..no-such", 'error: --git: no-such is not a commit of this repository\n'),
    ("v1", 'error: --git: expected REV1..REV2, found v1\n'),
])
def test_git_revisions_never_reach_git_as_flags(repo, revisions, message):
    result = run_cli("compare", f"--git={revisions}", "-k", "config", "--all-models")
    assert (result.code, result.stderr) == (2, message)


@pytest.mark.parametrize("flags", [("--from-cluster",), ("--context", "ops")])
def test_git_reads_no_cluster_flags(repo, flags):
    result = run_cli("compare", "--git", "v1..main", "-k", "config", "--all-models", *flags)
    assert (result.code, result.stderr) == (2, "error: --from-cluster, --context, --kubeconfig and --request-timeout: "
                                                "--git reads both snapshots from the repository, no cluster\n")


def test_git_paths_stay_inside_the_repository(repo):
    result = run_cli("compare", "--git", "v1..main", "-f", "../../etc", "--all-models")
    assert (result.code, result.stderr) == (2, 'error: --git: ../../etc is not a path inside the repository\n')


def test_git_messages_name_the_revision_not_a_temporary_directory(repo):
    result = run_cli("compare", "--git", "v1..main", "-f", "config/missing.yaml", "--all-models")
    assert result.code == 2 and result.stderr.startswith("error: v1:config/missing.yaml: "), result.stderr


def test_profiles_a_name_in_neither_snapshot_is_explains_error(tmp_path):
    path = write(tmp_path / "m.yaml", two_runtimes())
    result = run_cli("compare", "-f", path, "--profiles", "v1.3,v1.2.2", "--model", "no-such-model")
    assert (result.code, result.stderr) == (2, 'error: clusterbasemodels.ome.io "no-such-model" not found\n')


def test_a_namespace_neither_snapshot_holds_is_explains_warning_per_side(tmp_path):
    """Issue 28 item 4: -n with a typo compared silently; explain warns (an error with --strict)."""
    documents = [model("m", "team"), runtime("a", "team")]
    path = write(tmp_path / "m.yaml", documents)
    result = run_cli("compare", "--before", path, "--after", path, "--model", "m", "-n", "taem")
    explain = run_cli("explain", "-f", path, "--model", "m", "-n", "taem")
    warning = explain.stderr.splitlines()[0].removeprefix("warning: ")
    assert result.stderr.startswith(f"warning: before: {warning}\nwarning: after: {warning}\n")
    strict = run_cli("compare", "--before", path, "--after", path, "--model", "m", "-n", "taem", "--strict")
    assert (strict.code, strict.stderr) == (2, f"error: {warning}\n")
