"""compare's two snapshots (issue 25): read by explain's readers from every
source explain reads (files, directories, kustomizations, stdin, a live
cluster) and from two git revisions without a checkout; a flag compare does
not read is a usage error, never ignored; a name in neither snapshot is
explain's error; an empty side is an error unless --allow-empty."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, ROOT, run_cli
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
    assert (result.code, result.stdout.splitlines()[-2]) == (0, "1 of 1 models keep their runtime."), result.stderr
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


EXPECTED = "error: --git: expected REV1..REV2, REV1...REV2 or REV (the working tree against REV), found "


@pytest.mark.parametrize("revisions, message", [
    ("--output=x..main", 'error: --git: --output=x is not a revision\n'),
    ("v1..no-such", 'error: --git: no-such is not a commit of this repository\n'),
    # issue 39 survivor 5: `v1..` kept exit 2 with another message when the check was dropped
    ("v1..", EXPECTED + "v1..; git reads a missing side as HEAD, ome-asp asks for both\n"),
    ("..v1", EXPECTED + "..v1; git reads a missing side as HEAD, ome-asp asks for both\n"),
    ("v1...", EXPECTED + "v1...; git reads a missing side as HEAD, ome-asp asks for both\n"),
    ("v1..main..v1", EXPECTED + "v1..main..v1\n"),
    ("v1....main", EXPECTED + "v1....main\n"),
])
def test_git_revisions_never_reach_git_as_flags(repo, revisions, message):
    """A range that is none of the three forms is one clear error (issue 37);
    `--git v1..` is not read as git reads it (v1..HEAD), silently."""
    result = run_cli("compare", f"--git={revisions}", "-k", "config", "--all-models")
    assert (result.code, result.stderr) == (2, message)


@pytest.mark.parametrize("flags", [("--from-cluster",), ("--context", "ops")])
def test_git_reads_no_cluster_flags(repo, flags):
    result = run_cli("compare", "--git", "v1..main", "-k", "config", "--all-models", *flags)
    assert (result.code, result.stderr) == (2, "error: --from-cluster, --context, --kubeconfig and --request-timeout: "
                                                "--git reads both snapshots from the repository, no cluster\n")


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def test_git_three_dots_compares_with_the_merge_base(repo):
    """Issue 37: `--git A...B` (GitHub's form) failed (".main is not a commit");
    A..B compares B with A, so a change merged into A since B branched
    shows reversed. Here main raises a's priority after the branch `pr`
    left it at v1 and `pr` raises b's: only pr's change is pr's."""
    git(repo, "checkout", "-q", "-b", "pr", "v1")
    kustomization(repo / "config", moved())  # b's priority 3: m moves a -> b
    commit_all(repo, "pr")
    git(repo, "checkout", "-q", "main")
    overtaken = moved()
    overtaken[1]["spec"]["supportedModelFormats"][0]["priority"] = 9  # a wins again on main
    kustomization(repo / "config", overtaken)
    commit_all(repo, "main moves on")
    merge_base = selected(run_cli("compare", "--git", "main...pr", "-k", "config", "--all-models", "-o", "json"))
    two_dots = selected(run_cli("compare", "--git", "main..pr", "-k", "config", "--all-models", "-o", "json"))
    assert (merge_base, two_dots) == ((("a", "b"),), (("a", "b"),))  # the same here; their causes differ:
    report = json.loads(run_cli("compare", "--git", "main...pr", "-k", "config", "--all-models", "-o", "json").stdout)
    assert [c["object"]["name"] for c in report["changes"]] == ["b"]  # main's edit of a is not pr's
    reversed_ = json.loads(run_cli("compare", "--git", "main..pr", "-k", "config", "--all-models", "-o", "json").stdout)
    assert [c["object"]["name"] for c in reversed_["changes"]] == ["a"]  # main's own edit of a, reversed


def test_git_one_revision_is_compared_with_the_working_tree(repo):
    """Issue 37: `--git REV` is REV against the working tree as the user sees
    it, a tracked file edited and an untracked one added (a pre-commit hook's
    question)."""
    kustomization(repo / "config", two_runtimes())  # the working tree as at v1: nothing moved from v1
    unchanged = run_cli("compare", "--git", "v1", "-k", "config", "--all-models")
    assert unchanged.code == 0, unchanged.stderr
    write(repo / "config" / "new.yaml", [runtime("c", "default", supportedModelFormats=[entry()])])  # untracked
    (repo / "config" / "kustomization.yaml").write_text("resources: [all.yaml, new.yaml]\n")
    result = run_cli("compare", "--git", "v1", "-k", "config", "--all-models", "-o", "json")
    assert selected(result) == (("a", "c"),)
    (cause,) = json.loads(result.stdout)["items"][0]["causes"][0]
    assert (cause["file"], cause["line"], cause["side"]) == ("config/new.yaml", 1, "after")


def test_git_works_from_a_subdirectory_and_a_non_utf8_directory(tmp_path, monkeypatch):
    """Issue 38 item 3: from a subdirectory --git never worked ("No such file
    or directory"); from a directory whose name is not UTF-8, a traceback."""
    top = tmp_path / os.fsdecode(b"caf\xe9")
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    for message, documents in (("one", two_runtimes()), ("two", moved())):
        kustomization(top / "deploy" / "config", documents)
        git(top, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A")
        git(top, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", message)
    monkeypatch.chdir(top / "deploy")
    result = run_cli("compare", "--git", "HEAD~1..HEAD", "-k", "config", "--all-models", "-o", "json")
    assert selected(result) == (("a", "b"),)
    (cause,) = json.loads(result.stdout)["items"][0]["causes"][0]
    # from the repository's top, as `git show REV:path`
    assert (cause["file"], cause["revision"]) == ("deploy/config/all.yaml", "HEAD")
    missing = run_cli("compare", "--git", "HEAD~1..HEAD", "-f", "config/missing.yaml", "--all-models")
    assert (missing.code, missing.stderr) == (2, "error: HEAD~1:deploy/config/missing.yaml: No such file or directory\n")


def test_git_reads_only_the_named_paths(repo, monkeypatch):
    """Issue 38 item 3: `git archive` of the whole repository refused an
    unrelated file past --max-input-size and paid for every unrelated file;
    only the trees and blobs on the named paths are read now."""
    from ome_asp.input import revision

    read = []
    original = revision.Revision._object
    monkeypatch.setattr(revision.Revision, "_object", lambda self, name, *a: read.append(name) or original(self, name, *a))
    flags = ("--git", "v1..main", "-k", "config", "--all-models", "--max-input-size", "64Ki")
    assert selected(run_cli("compare", *flags, "-o", "json")) == (("a", "b"),)
    alone = len(read)
    (repo / "big.bin").write_bytes(b"x" * 2**20)  # 1 MiB, past --max-input-size
    for n in range(200):
        write(repo / "unrelated" / f"f{n}.yaml", [runtime(f"u{n}")])
    git(repo, "add", "big.bin", "unrelated")
    git(repo, "commit", "-q", "-m", "unrelated")
    read.clear()
    unrelated = run_cli("compare", "--git", "main~1..main", *flags[2:])  # the same catalog, the unrelated files added
    assert (unrelated.code, unrelated.stderr) == (0, "")
    assert len(read) == alone  # the same trees and blobs: none of the 201 files, nor their directory


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


# --- a pull request does not decide what --git reads (issue 38) -----------------------


def test_git_ignores_the_revisions_attributes_and_filters(repo, tmp_path):
    """Issue 38 item 1: `git archive` applied the revision's .gitattributes:
    `export-ignore` hid a new runtime that takes m over (compare said "keep
    their runtime" and --fail-on moved exited 0), `export-subst` rewrote a
    file in the archive only, and `filter=` ran a configured program. The
    revision is read as git stores it."""
    ran = tmp_path / "filter-ran"
    git(repo, "config", "filter.evil.smudge", f"touch {ran}; cat")
    git(repo, "config", "filter.evil.clean", "cat")
    write(repo / "catalog" / "all.yaml", two_runtimes())
    commit_all(repo, "a plain folder")
    # a ServingRuntime of the namespace wins (O1); its runner image reads $Format:%H$ (export-subst)
    write(repo / "catalog" / "takeover.yaml", [runtime("c", "default", supportedModelFormats=[entry()])])
    (repo / ".gitattributes").write_text("catalog/takeover.yaml export-ignore filter=evil\ncatalog/all.yaml export-subst\n")
    commit_all(repo, "hostile")
    result = run_cli("compare", "--git", "main~1..main", "-f", "catalog", "--all-models", "--fail-on", "moved", "-o", "json")
    assert result.code == 1 and selected(result) == (("a", "c"),)
    assert not ran.exists()


def test_git_refuses_a_link_that_leaves_the_tree_and_follows_one_inside(repo, tmp_path):
    """Issue 38 item 3: any absolute or outward symlink anywhere in the
    repository was an internal error (exit 3). One not named costs nothing;
    one named is followed inside the tree and refused when it leaves it."""
    outside = tmp_path / "outside.yaml"
    write(outside, moved())
    (repo / "elsewhere").mkdir()
    (repo / "elsewhere" / "abs").symlink_to("/etc/passwd")
    (repo / "elsewhere" / "up").symlink_to("../../outside.yaml")
    (repo / "linked").symlink_to("config")  # a link to a directory inside the tree
    write(repo / "config" / "all.yaml", moved())
    commit_all(repo, "links")
    assert selected(run_cli("compare", "--git", "v1..main", "-k", "config", "--all-models", "-o", "json")) == (("a", "b"),)
    through = run_cli("compare", "--git", "main..main", "-k", "linked", "--all-models")
    assert (through.code, through.stderr) == (0, "")
    for link, message in (("elsewhere/abs", "a symbolic link to /etc/passwd, outside the repository"),
                          ("elsewhere/up", "a symbolic link leads outside the repository")):
        result = run_cli("compare", "--git", "main..main", "-f", link, "--all-models")
        assert result.code == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith(f"error: main:{link}: ") and message in result.stderr, result.stderr


def test_git_names_a_resource_above_the_repository_by_the_revision(repo):
    """A kustomization's resource above the repository's top is named as the
    revision names files (it was the absolute path of the working directory's parent)."""
    write(repo / "config" / "all.yaml", moved())
    (repo / "config" / "kustomization.yaml").write_text("resources: [../../outside]\n")
    commit_all(repo, "above")
    result = run_cli("compare", "--git", "main..main", "-k", "config", "--all-models")
    assert (result.code, result.stderr) == (2, "error: main:../outside: outside the repository; compare --git reads "
                                                "the repository's files only\n")


def test_git_refuses_a_submodule_clearly(repo):
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{git(repo, 'rev-parse', 'v1')},config/vendored")
    git(repo, "commit", "-q", "-m", "a submodule")
    result = run_cli("compare", "--git", "main..main", "-f", "config/vendored", "--all-models")
    assert (result.code, result.stderr) == (2, f"error: main:config/vendored: a submodule (commit "
                                                f"{git(repo, 'rev-parse', 'v1')[:12]}); compare --git does not read submodules\n")


@pytest.fixture
def recording_kubectl(tmp_path, monkeypatch) -> Path:
    """A `kubectl` first on PATH that records that it ran (and fails)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubectl"
    script.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'kubectl-ran'}\nexit 1\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path / "kubectl-ran"


@pytest.mark.parametrize("kustomization, message", [
    ("resources: [all.yaml, https://github.com/evil/catalog//runtimes?ref=main]\n",
     "resources: https://github.com/evil/catalog//runtimes?ref=main is a remote base, not a local file or directory; "
     "compare --git never fetches anything (D-220)"),
    ("resources: [all.yaml]\npatches: [{path: p.yaml}]\n",
     "patches needs kustomize, which ome-asp does not apply; compare --git never runs kubectl kustomize, which fetches "
     "remote bases (D-220): render the kustomization in a step you trust and compare its output with --before/--after"),
])
@pytest.mark.parametrize("side", ["revision", "working tree"])
def test_git_never_fetches_nor_runs_kubectl(repo, recording_kubectl, kustomization, message, side):
    """Issue 38 item 2: with kubectl on PATH, `compare --git … -k` ran
    `kubectl kustomize`, which fetches every remote base a pull request's
    kustomization names. A remote base is an error naming it, kubectl or not."""
    write(repo / "config" / "all.yaml", moved())
    (repo / "config" / "kustomization.yaml").write_text(kustomization)
    if side == "revision":
        commit_all(repo, "remote")
    result = run_cli("compare", "--git", "v1..main" if side == "revision" else "v1", "-k", "config", "--all-models")
    label = "main:config" if side == "revision" else "config"
    assert (result.code, result.stderr) == (2, f"error: {label}/kustomization.yaml: {message}\n")
    assert not recording_kubectl.exists()


def test_before_after_reads_k_natively_so_causes_name_the_files(tmp_path, recording_kubectl):
    """D-221: a kustomization the built-in reader reads is read natively, so
    each cause names its own file and line (through kubectl, the line of
    kubectl's output); kubectl runs only for what needs kustomize."""
    before, after = kustomization(tmp_path / "b", two_runtimes()), kustomization(tmp_path / "a", moved())
    result = run_cli("compare", "--before-k", before, "--after-k", after, "--all-models", "-o", "json")
    (cause,) = json.loads(result.stdout)["items"][0]["causes"][0]
    assert (cause["file"], cause["side"]) == (str(tmp_path / "a" / "all.yaml"), "after")
    assert not recording_kubectl.exists()
    (tmp_path / "a" / "kustomization.yaml").write_text("resources: [all.yaml]\nnamePrefix: x-\n")
    run_cli("compare", "--before-k", before, "--after-k", after, "--all-models")
    assert recording_kubectl.read_text() == f"kustomize -- {after}\n"


def test_allow_empty_accepts_a_snapshot_without_objects(tmp_path):
    """Issue 38 item 7: `--allow-empty` refused an empty snapshot ("no objects
    in the input"), its own use case (a catalog deleted on purpose)."""
    full = write(tmp_path / "m.yaml", two_runtimes())
    (tmp_path / "empty.yaml").write_text("")
    refused = run_cli("compare", "--before", full, "--after", str(tmp_path / "empty.yaml"), "--all-models")
    assert refused.code == 2 and "pass --allow-empty" in refused.stderr
    allowed = run_cli("compare", "--before", full, "--after", str(tmp_path / "empty.yaml"), "--all-models", "--allow-empty",
                      "-o", "json")
    assert allowed.code == 1, allowed.stderr
    assert [item["change"] for item in json.loads(allowed.stdout)["items"]] == ["lost"]
    assert "warning: the after snapshot has no runtimes and no models" in allowed.stderr


# --- the docs' CI recipe (issue 37) ---------------------------------------------------


def recipe_argv() -> list[str]:
    """The `ome-asp compare` line of docs/compare.md's workflow, as the job runs it on a pull request into main."""
    text = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n# \.github/workflows/catalog-review\.yaml\n(.*?)```", text, re.S)[1]
    command = re.search(r"ome-asp (compare .*?) > compare\.md", block.replace("\\\n", " "), re.S)[1]
    return shlex.split(command.replace("$GITHUB_BASE_REF", "main"))


def test_the_docs_ci_recipe_runs_on_a_pull_request(tmp_path, monkeypatch):
    """docs/compare.md's job, its command as written (`origin/main...HEAD`,
    -k for the runtimes' kustomization, -f for the plain folder of models),
    on a repository where a pull request, branched before main moved on,
    makes m-lost lose its runtime and m-moved move: exit 1; the heading names
    the revisions, the profile and the verdict; the first cause row is the
    lost model at its file and line; main's own change since (m-new) is not
    the pull request's (`..` would show it, reversed)."""
    onnx, gguf = {"name": "onnx", "version": "1"}, {"name": "gguf", "version": "1"}
    top = tmp_path / "repo"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.email", "t@example.com")
    git(top, "config", "user.name", "t")
    runtimes = {"rt-lost": runtime("rt-lost", supportedModelFormats=[entry(modelFormat=onnx)]),
                "rt-a": runtime("rt-a", supportedModelFormats=[entry(priority=2)]),
                "rt-b": runtime("rt-b", supportedModelFormats=[entry(priority=1)]),
                "rt-gguf": runtime("rt-gguf", supportedModelFormats=[entry(modelFormat=gguf)])}
    for name, document in runtimes.items():
        write(top / "config" / "runtimes" / f"{name}.yaml", [document])
    (top / "config" / "runtimes" / "kustomization.yaml").write_text(f"resources: {sorted(f'{n}.yaml' for n in runtimes)}\n")
    write(top / "config" / "models" / "m-lost.yaml", [model("m-lost", modelFormat=onnx)])
    write(top / "config" / "models" / "m-moved.yaml", [model("m-moved")])
    commit_all(top, "catalog")
    git(top, "checkout", "-q", "-b", "pr")
    runtimes["rt-lost"]["spec"]["disabled"] = True
    runtimes["rt-b"]["spec"]["supportedModelFormats"][0]["priority"] = 3
    for name in ("rt-lost", "rt-b"):
        write(top / "config" / "runtimes" / f"{name}.yaml", [runtimes[name]])
    commit_all(top, "the pull request")
    git(top, "checkout", "-q", "main")
    write(top / "config" / "models" / "m-new.yaml", [model("m-new", modelFormat=gguf)])  # main moves on
    commit_all(top, "main moves on")
    git(top, "update-ref", "refs/remotes/origin/main", "main")
    git(top, "checkout", "-q", "pr")
    monkeypatch.chdir(top)
    argv = recipe_argv()
    assert argv[:3] == ["compare", "--git", "origin/main...HEAD"] and "-f" in argv and "-k" in argv
    result = run_cli(*argv)
    assert result.code == 1, result.stderr
    base, head = git(top, "merge-base", "main", "pr")[:12], git(top, "rev-parse", "HEAD")[:12]
    lines = result.stdout.splitlines()
    assert lines[0] == (f"### ome-asp compare: ` {base} (the merge base of origin/main and HEAD) ` → ` HEAD ({head}) ` "
                        "· profile ` v1.3 ` · fail")
    assert lines[2] == "Verdict: fail (--fail-on lost,moved): 1 lost their runtime, 1 moved."
    rows = [line for line in lines if line.startswith("| 1 model")]
    disabled = (top / "config" / "runtimes" / "rt-lost.yaml").read_text().splitlines().index("  disabled: true") + 1
    assert rows[0] == ("| 1 model lost their runtime: ` m-lost ` | ` ClusterServingRuntime rt-lost: spec.disabled: absent → "
                       f"true ` | ` HEAD:config/runtimes/rt-lost.yaml:{disabled} ` |")
    assert rows[1].startswith("| 1 model moved: ` m-moved ` |") and "m-new" not in result.stdout
    two_dots = run_cli(*[a.replace("...", "..") for a in argv])
    assert "m-new" in two_dots.stdout  # main's model, reversed: the pull request did not remove it
