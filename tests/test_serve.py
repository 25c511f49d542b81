"""Warm mode: `serve --stdio` answers JSON lines exactly as explain -o json
answers the same queries, from a preloaded cluster or per-request manifests."""

from __future__ import annotations

import copy
import ctypes
import gc
import io
import json
import os
import re
import threading
import tracemalloc
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, messages, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ome_asp
from ome_asp.cli import main
from ome_asp.commands import serve as serve_module
from ome_asp.input import profiles
from ome_asp.render import report
from ome_asp.testing import strategies

WORKED = str(FIXTURES / "worked-example")


def serve(*requests, argv=("-f", WORKED)) -> list[dict]:
    lines = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    result = run_cli("serve", "--stdio", *argv, stdin=lines.encode())
    assert result.code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def explain_json(*argv) -> dict:
    return json.loads(run_cli("explain", *argv, "-o", "json").stdout)


def test_answers_equal_explain_json_in_order():
    model = {"id": "a", "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}
    isvc = {"id": 2, "namespace": "llama-demo", "isvc": "llama-chat"}
    answers = serve(model, isvc, model)
    assert [a["id"] for a in answers] == ["a", 2, "a"]
    assert answers[0]["report"] == explain_json("--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED)
    assert answers[1]["report"] == explain_json("--isvc", "llama-chat", "-n", "llama-demo", "-f", WORKED)
    assert answers[2] == answers[0]


def _runtime_document(kind: str, name: str, namespace: str | None, priorities: list[int]) -> dict:
    metadata = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    entries = [{"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}, "priority": p,
                "autoSelect": True} for p in priorities]
    return {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": metadata, "spec": {"supportedModelFormats": entries}}


def test_a_namespace_is_grounded_on_its_part_of_the_cluster(tmp_path, monkeypatch):
    """The first request in a namespace grounds that namespace's
    ServingRuntimes and the cluster-scoped ones, not every namespace's (a
    review of issue 26, D-149: as explain --all-models grounds a chunk,
    D-120); every ServingRuntime is admitted once, so each report still
    lists the whole cluster's denials (I9, W4: wb's two priorities) and
    equals explain's."""
    model = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
             "spec": {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}}}
    runtimes = [_runtime_document("ClusterServingRuntime", "c", None, [1]),
                *[_runtime_document("ServingRuntime", f"r{ns}", ns, [1]) for ns in "abcd"],
                _runtime_document("ServingRuntime", "wb", "b", [1, 2])]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([model, *runtimes]))
    grounded = []
    ask = serve_module.ask.ask
    monkeypatch.setattr(serve_module.ask, "ask", lambda cluster, queries, variant, **kw: (
        grounded.append((variant.name, sorted(r.name for r in cluster.runtimes))) or ask(cluster, queries, variant, **kw)))
    answers = serve({"id": 1, "namespace": "a", "model": "m"}, {"id": 2, "namespace": "b", "model": "zz"},
                    argv=("-f", str(path), "-j", "1"))  # grounded here, not in a worker
    # the admission once, namespace a's query, then namespace b's miss (zz: its stand-in, D-321)
    assert grounded == [("ADMIT", ["ra", "rb", "rc", "rd", "wb"]), ("EXPLAIN", ["c", "ra"]), ("EXPLAIN", ["c", "rb", "wb"])]
    assert answers[0]["report"] == explain_json("--model", "m", "-n", "a", "-f", str(path))
    assert [d["name"] for d in answers[0]["report"]["denied"]] == ["wb"]
    assert f"error: {answers[1]['error']}" == run_cli("explain", "--model", "zz", "-n", "b", "-f", str(path)).stderr.splitlines()[-1]


def test_a_namespaces_second_grounding_answers_the_rest_of_it(tmp_path, monkeypatch):
    """A client asking one query at a time (issue 40): the first request in a
    namespace grounds its own query only (a namespace's every model and
    InferenceService cost ~100 ms a request on a 500-runtime cluster asked
    once per namespace), the second every query of the namespace not
    answered yet, and later ones none. Fails with the whole namespace
    grounded at the first request, and with each request grounded alone."""
    models = [{"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": name},
               "spec": {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}}} for name in "mno"]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([*models, _runtime_document("ServingRuntime", "r", "a", [1])]))
    grounded = []
    ask = serve_module.ask.ask
    monkeypatch.setattr(serve_module.ask, "ask", lambda cluster, queries, variant, **kw: (
        grounded.append(sorted(q.model for q in queries)) or ask(cluster, queries, variant, **kw)))
    oracle = serve_module.Oracle(serve_module.load([str(path)]))
    grounded.clear()  # the admission
    answers = [serve_module.respond_all([{"namespace": "a", "model": model}], lambda profile: oracle)[0] for model in "nmon"]
    assert grounded == [["n"], ["m", "o"]]
    for model, answer in zip("nmon", answers):
        assert answer["report"] == explain_json("--model", model, "-n", "a", "-f", str(path))


def test_bad_requests_get_an_error_line_and_serving_goes_on():
    answers = serve("not json", {"id": 1, "model": "m", "isvc": "i"}, {"id": 2, "namespace": "x", "model": "zz"},
                    {"id": 3, "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"})
    assert answers[0] == {"id": None, "error": "line 1: not a JSON request: Expecting value: line 1 column 1 (char 0)"}
    assert answers[1]["error"].startswith('a request needs "namespace"')
    assert answers[2] == {"id": 2, "error": 'clusterbasemodels.ome.io "zz" not found'}  # E4
    assert answers[3]["report"]["selected"]["name"] == "team-llama"


def test_a_misspelt_model_or_isvc_gets_the_hint_explain_prints():
    """Issue 24 (D-127): explain and select print `hint: did you mean "…"?`
    under E4's error line; serve's error answer had only the error. The hint
    is an added field (from the loaded cluster and a request's manifests
    alike); an answer without a close name is as before."""
    documents = list(yaml.safe_load_all(open(WORKED + "/manifests.yaml")))
    answers = serve({"id": 1, "namespace": "llama-demo", "model": "llama-3-2-3b-instruc"},
                    {"id": 2, "command": "select", "namespace": "llama-demo", "isvc": "llama-cht"},
                    {"id": 3, "namespace": "llama-demo", "isvc": "llama-cht", "manifests": documents},
                    {"id": 4, "namespace": "llama-demo", "model": "zz"})
    assert answers == [
        {"id": 1, "error": 'clusterbasemodels.ome.io "llama-3-2-3b-instruc" not found', "hint": 'did you mean "llama-3-2-3b-instruct"?'},
        {"id": 2, "error": 'inferenceservices.ome.io "llama-cht" not found', "hint": 'did you mean "llama-chat"?'},
        {"id": 3, "error": 'inferenceservices.ome.io "llama-cht" not found', "hint": 'did you mean "llama-chat"?'},
        {"id": 4, "error": 'clusterbasemodels.ome.io "zz" not found'}]
    assert run_cli("explain", "--model", "llama-3-2-3b-instruc", "-n", "llama-demo", "-f", WORKED).stderr.splitlines()[1] == (
        'hint: did you mean "llama-3-2-3b-instruct"?')


def test_stdin_cannot_be_both_cluster_and_requests():
    result = run_cli("serve", "--stdio", "-f", "-")
    assert (result.code, result.stderr) == (2, "error: serve reads its requests from stdin, so -f - cannot be the cluster\n")


# A message's place in the YAML text of a request's manifests, and the JSON path
# serve gives it instead (docs/oracle.md): the document's index, the List item.
_YAML_PLACE = re.compile(r"<stdin>:\d+: document (\d+)(?:: items\[(\d+)\])?")


def as_json_paths(answer: dict) -> dict:
    """An answer of explain on the YAML text of a request's manifests with
    each message placed as serve places it (`manifests[3].items[0]`)."""

    def place(m: re.Match) -> str:
        return f"manifests[{int(m[1]) - 1}]" + (f".items[{m[2]}]" if m[2] else "")

    text = json.dumps(answer, ensure_ascii=False)
    return json.loads(_YAML_PLACE.sub(place, text).replace("no objects in the input: <stdin>", "no objects in the input: manifests"))


def explain_yaml(documents: list, query: dict, profile: str = "v1.3") -> dict:
    """What explain -o json answers on the YAML text of `documents`: {"report"} or {"error"}."""
    target = ["--isvc", query["isvc"]] if "isvc" in query else ["--model", query["model"]]
    result = run_cli("explain", *target, "-n", query["namespace"], "-f", "-", "-o", "json", "--profile", profile,
                     stdin=report.to_yaml_all(documents).encode("utf-8", "surrogatepass"))
    if result.stdout:  # a report, also of an outcome (exit 4)
        return {"report": json.loads(result.stdout)}
    return error_answer(result.stderr)


def error_answer(stderr: str) -> dict:
    """The command line's error as serve answers it: the `error: ` line after
    any warning line, and the `hint: ` line under it as `hint` (D-127)."""
    lines = stderr.splitlines()
    (n,) = [n for n, line in enumerate(lines) if line.startswith("error: ")]
    error, *hints = lines[n:]
    assert len(hints) <= 1 and all(h.startswith("hint: ") for h in hints), stderr
    answer = {"error": error.removeprefix("error: ")}
    answer.update(("hint", h.removeprefix("hint: ")) for h in hints)
    return answer


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters())
def test_self_contained_cases_answer_like_explain(case):
    """A request's manifests are answered as explain answers their YAML text,
    warnings and errors included, each message placed at a JSON path."""
    documents, query = case
    (answer,) = serve({"id": 0, "manifests": documents, **query}, argv=())
    assert {k: v for k, v in answer.items() if k != "id"} == as_json_paths(explain_yaml(documents, query))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters())
def test_preloaded_batches_answer_like_one_query_explain(tmp_path_factory, case):
    """The namespace batch (one grounding for all its queries) gives each
    query the report of a one-query #minimize run."""
    documents, query = case
    path = tmp_path_factory.mktemp("case") / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    target = ["--isvc", query["isvc"]] if "isvc" in query else ["--model", query["model"]]
    expected = run_cli("explain", *target, "-n", query["namespace"], "-f", str(path), "-o", "json")
    (answer,) = serve({"id": 0, **query}, argv=("-f", str(path)))
    if expected.code == 0:
        assert answer["report"] == json.loads(expected.stdout)
    else:
        assert "error: " + answer["error"] in expected.stderr.splitlines()


_ODD_VALUES = st.one_of(
    st.text(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.none(), st.booleans(),
    st.just("\x85"), st.just("2024-01-01"), st.just("yes"), st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters(), st.sampled_from(list(profiles.PROFILES)), st.data())
def test_manifests_read_as_they_are_answer_like_their_yaml_text(case, profile, data):
    """serve never writes a request's manifests as YAML: every answer, error
    or report, is the one of their YAML text but for its messages' places,
    also with odd values (types, unknown keys) put anywhere."""
    documents, query = case
    documents = copy.deepcopy(documents)
    for _ in range(data.draw(st.integers(0, 2))):
        node = data.draw(st.sampled_from(documents))
        for key in data.draw(st.lists(st.sampled_from(["spec", "metadata", "supportedModelFormats", "name", "priority", "x"]), max_size=3)):
            child = node.get(key) if isinstance(node, dict) else None
            if isinstance(child, list) and child:
                child = child[0]
            if not isinstance(child, dict):
                break
            node = child
        node[data.draw(st.sampled_from(["name", "namespace", "priority", "weight", "modelFormat", "x"]))] = data.draw(_ODD_VALUES)
    answer = serve_module.respond({"id": 0, "manifests": documents, "profile": profile, **query}, None)
    assert {k: v for k, v in answer.items() if k != "id"} == as_json_paths(explain_yaml(documents, query, profile))


def test_messages_about_a_requests_manifests_name_json_paths():
    """An error and a warning about a request's manifests name the document by
    its JSON path, and the field by its path after the object (docs/oracle.md)."""
    model = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
             "spec": {"modelFormat": {"name": "safetensors"}}}
    runtime = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": "r"},
               "spec": {"supportedModelFormats": [{"modelFormat": {"name": "safetensors", "weight": "9"}}]}}
    other = {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}]}
    error, warned = serve({"id": 1, "model": "m", "manifests": [model, runtime]},
                          {"id": 2, "model": "m", "manifests": [model, other]}, argv=())
    assert error["error"] == ('manifests[1]: ClusterServingRuntime r: spec.supportedModelFormats[0].modelFormat.weight: '
                              'Invalid value: "string": spec.supportedModelFormats[0].modelFormat.weight in body must be '
                              'of type integer: "string"')
    assert warned["report"]["warnings"] == ["manifests[1].items[0]: kind ConfigMap is not read by ome-asp"]


# --- batches and commands (issue 12) -------------------------------------------


def test_read_ahead_takes_every_buffered_line_within_its_bounds():
    """Blank lines are lines (answered with an error, issue 28); an unended last line is complete at the end of input."""
    stream = io.BytesIO(b'{"a": 1}\n\n{"b": 2}\n  \n{"c": 3}\n{"d": 4}')
    assert [[n for n, _ in batch] for batch in serve_module.read_ahead(stream)] == [[1, 2, 3, 4, 5], [6]]
    stream.seek(0)
    assert [[n for n, _ in batch] for batch in serve_module.read_ahead(stream, max_lines=2)] == [[1, 2], [3, 4], [5], [6]]
    stream.seek(0)
    assert [[n for n, _ in batch] for batch in serve_module.read_ahead(stream, max_bytes=16)] == [[1, 2], [3, 4], [5], [6]]


def test_a_client_sending_one_line_at_a_time_gets_each_answer_before_the_next_line():
    """serve waits for input only when no complete line is buffered: the
    answer to a line comes before the client sends another (a pipe, as a
    client talks to serve)."""
    read_requests, write_requests = os.pipe()
    read_answers, write_answers = os.pipe()
    with open(read_requests, "rb") as requests, open(write_answers, "w") as answers_out:
        worker = threading.Thread(target=serve_module.serve, args=(None, requests, answers_out))
        worker.start()
        with open(write_requests, "wb", buffering=0) as client, open(read_answers) as answers:
            for n in range(3):
                client.write(json.dumps({"id": n, "model": "m"}).encode() + b"\n")
                assert json.loads(answers.readline())["id"] == n  # blocks forever if serve waited for more
            client.close()
            worker.join(timeout=60)
            assert not worker.is_alive()


def test_serve_widens_the_pipe_it_reads_requests_from():
    """A client writing ahead fills batches as large as the pipe holds, and
    every batch grounds the encoding once (about 15 ms): Linux's default pipe
    of 64 KiB held ~18 requests with manifests; serve widens its stdin to
    PIPE_BYTES (issue 26, D-147). A file (tests' BytesIO) is left alone."""
    fcntl = pytest.importorskip("fcntl")
    if not hasattr(fcntl, "F_GETPIPE_SZ"):
        pytest.skip("pipe sizes are Linux's")
    if int(Path("/proc/sys/fs/pipe-max-size").read_text()) < serve_module.PIPE_BYTES and os.geteuid() != 0:
        pytest.skip("fs.pipe-max-size is below PIPE_BYTES")
    read_requests, write_requests = os.pipe()
    assert fcntl.fcntl(write_requests, fcntl.F_GETPIPE_SZ) < serve_module.PIPE_BYTES
    os.write(write_requests, json.dumps({"id": 1, "model": "m"}).encode() + b"\n")
    os.close(write_requests)
    out = io.StringIO()
    with open(read_requests, "rb") as requests:
        assert main(["serve", "--stdio"], stdin=requests, stdout=out, stderr=io.StringIO()) == 0
        assert fcntl.fcntl(requests.fileno(), fcntl.F_GETPIPE_SZ) == serve_module.PIPE_BYTES
    assert json.loads(out.getvalue())["id"] == 1


def _cli_json(command: str, path: str, *target: str, profile: str = "v1.3") -> dict:
    result = run_cli(command, *target, "-f", path, "--profile", profile, "-o", "json")
    return json.loads(result.stdout) if result.stdout.strip() else error_answer(result.stderr)


def test_select_and_admit_requests_answer_as_the_commands():
    """"command": "select" / "admit" report what select / admit -o json print,
    for the loaded cluster and for a request's own manifests."""
    documents = [d for d in yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text()) if d]
    select = {"command": "select", "namespace": "llama-demo", "isvc": "llama-chat"}
    answers = serve({"id": 1, **select}, {"id": 2, "command": "admit"}, {"id": 3, **select, "manifests": documents},
                    {"id": 4, "command": "admit", "manifests": documents})
    assert answers[0]["report"] == _cli_json("select", WORKED, "--isvc", "llama-chat", "-n", "llama-demo")
    assert answers[1]["report"] == _cli_json("admit", WORKED)
    assert [a["report"] for a in answers[2:]] == [a["report"] for a in answers[:2]]


def test_requests_about_the_loaded_cluster_share_their_groundings(tmp_path, monkeypatch):
    """Issue 40 (a 500-runtime dump: ~100 ms a request against explain
    --all-models' ~30 ms a model): admit about -f's cluster is grounded once
    (it was a world of the whole cluster per request); the select requests of
    a batch in a namespace are grounded together on what they read and those
    about what the cluster has are kept; a namespace no object is in is
    answered as one stand-in namespace (D-321: it reads the cluster-scoped
    objects alone). Every answer as the command line's, warnings once.
    Fails with admit grounded per request, selects one by one, and each
    empty namespace grounded on its own."""
    model = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
             "spec": {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}}}
    typo = {**model, "metadata": {"name": "m2"}, "spec": {**model["spec"], "modelFormat": {"name": "safetensors", "wieght": 1}}}
    runtimes = [_runtime_document("ClusterServingRuntime", "c", None, [1]), _runtime_document("ServingRuntime", "r", "a", [1]),
                _runtime_document("ServingRuntime", "wb", "a", [1, 2])]
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([model, typo, *runtimes]))
    grounded = []
    ask = serve_module.ask.ask
    monkeypatch.setattr(serve_module.ask, "ask", lambda cluster, queries, variant, **kw: (
        grounded.append((variant.name, [q.namespace for q in queries])) or ask(cluster, queries, variant, **kw)))
    requests = [{"command": "admit"}, {"command": "select", "namespace": "a", "model": "m"},
                {"command": "select", "namespace": "a", "model": "m2"}, {"namespace": "x", "model": "m"},
                {"namespace": "y", "model": "m2"}, {"command": "admit"}, {"command": "select", "namespace": "a", "model": "m"}]
    answers = serve(*requests, argv=("-f", str(path), "-j", "1"))
    # the Oracle's admission of what no grounding reads, admit's once, x and y as one, a's two selects together
    assert grounded == [("ADMIT", []), ("ADMIT", []), ("EXPLAIN", ["-0", "-0"]), ("SELECT", ["a", "a"])]
    assert answers[0] == answers[5] and answers[1] == answers[6]
    assert answers[0]["report"] == _cli_json("admit", str(path))
    assert sum("wieght" in warning for warning in answers[6]["report"]["inputWarnings"]) == 1  # once, though kept
    for answer, argv in zip(answers[1:5], (["select", "--model", "m", "-n", "a"], ["select", "--model", "m2", "-n", "a"],
                                            ["explain", "--model", "m", "-n", "x"], ["explain", "--model", "m2", "-n", "y"])):
        assert answer["report"] == _cli_json(argv[0], str(path), *argv[1:])


def test_ping_answers_the_protocol_and_version_in_request_order():
    """Readiness (issue 40): a `ping` request is answered without grounding
    anything, after every request before it, with the protocol version, the
    version, the default profile and whether -f's cluster is loaded (it is
    read before the first request); a ping with other keys is an error
    answer. Ids need not be unique: each answer echoes its request's, in
    request order."""
    ping = {"id": 7, "command": "ping"}
    answers = serve(ping, {"id": 7, "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}, ping,
                    {**ping, "profile": "v1.3"}, argv=("-f", WORKED, "--profile", "v1.2.2"))
    status = {"apiVersion": "ome-asp/v1alpha1", "kind": "ServeStatus", "protocol": serve_module.PROTOCOL,
              "version": ome_asp.__version__, "profile": "v1.2.2", "cluster": True}
    assert [a["id"] for a in answers] == [7, 7, 7, 7]
    assert answers[0] == answers[2] == {"id": 7, "report": status} and answers[1]["report"]["kind"] == "RuntimeExplainReport"
    assert answers[3] == {"id": 7, "error": 'a ping request has no key "profile"'}
    assert serve(ping, argv=())[0]["report"] == {**status, "profile": "v1.3", "cluster": False}


def test_unknown_commands_and_keys_are_error_answers_never_an_explain():
    answers = serve(
        {"id": 1, "command": "rank", "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"},
        {"id": 2, "namespace": "llama-demo", "model": "llama-3-2-3b-instruct", "modle": "x"},
        {"id": 3, "command": "admit", "model": "llama-3-2-3b-instruct"},
        {"id": 4, "command": ["explain"]},
    )
    assert answers == [
        {"id": 1, "error": '"command" must be one of explain, select, admit, ping'},
        {"id": 2, "error": 'a explain request has no key "modle"'},
        {"id": 3, "error": 'a admit request has no key "model"'},
        {"id": 4, "error": '"command" must be one of explain, select, admit, ping'},
    ]


@st.composite
def _requests(draw):
    documents, query = draw(strategies.clusters(max_runtimes=5))
    command = draw(st.sampled_from(["explain", "select", "admit"]))
    profile = draw(st.sampled_from(list(profiles.PROFILES)))
    target = {} if command == "admit" else query
    return {"command": command, "profile": profile, **target, "manifests": documents}


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_requests(), min_size=1, max_size=10))
def test_a_batch_answers_each_request_as_the_command_line_does(tmp_path_factory, requests):
    """Issue 12: requests read ahead as one batch (worlds; mixed commands,
    profiles, --model/--isvc, outcomes and errors) answer exactly as each
    command answers its request alone; also when worker processes answer
    the batch in chunks (-j 2, issue 26)."""
    answers = serve(*[{"id": n, **r} for n, r in enumerate(requests)], argv=("-j", "2"))
    for n, (request, answer) in enumerate(zip(requests, answers)):
        path = tmp_path_factory.mktemp("case") / "cluster.yaml"
        path.write_text(yaml.safe_dump_all(request["manifests"]))
        target = [] if request["command"] == "admit" else [
            "--isvc" if "isvc" in request else "--model", request.get("isvc", request.get("model")), "-n", request["namespace"]]
        alone = _cli_json(request["command"], str(path), *target, profile=request["profile"])
        assert answer["id"] == n
        if "report" in answer or "error" not in alone:
            assert placeless(answer["report"]) == placeless(alone)
        else:  # the same error and hint; an input error names the request's input, not the file
            assert answer["error"].split(": ")[-1] == alone["error"].split(": ")[-1]
            assert answer.get("hint") == alone.get("hint")


def test_workers_answer_in_request_order_the_same_bytes_for_every_j(monkeypatch):
    """serve -j N (issues 26, 40): the requests with their own manifests go
    to worker processes in shares, the others are answered here; the answers
    are the bytes -j 1 writes, in request order: requests about the loaded
    cluster, with their own manifests, every command, bad lines."""
    documents = [d for d in yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text()) if d]
    query = {"namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}
    lines = []
    for n in range(12):
        lines += [{"id": n, **query}, {"id": f"{n}i", "namespace": "llama-demo", "isvc": "llama-chat", "command": "select"},
                  {"id": f"{n}m", **query, "manifests": documents[n % 3:], "profile": list(profiles.PROFILES)[n % 3]},
                  {"id": f"{n}a", "command": "admit", "manifests": documents}, "not json", {"id": n, "model": "zz"}]
    data = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in lines).encode()
    one = run_cli("serve", "--stdio", "-f", WORKED, "-j", "1", stdin=data)
    assert one.code == 0 and len(one.stdout.splitlines()) == len(lines)
    monkeypatch.setattr(serve_module.batch.Cores, "free", lambda self: self.most)  # however busy the machine is
    monkeypatch.setattr(serve_module, "SHARE_LINES", 3)
    monkeypatch.setattr(serve_module.batch, "default_jobs", lambda: 4)  # the cores, whatever this machine has
    forked = _count_forks(monkeypatch)
    assert run_cli("serve", "--stdio", "-f", WORKED, "-j", "2", stdin=data) == one
    assert forked == [1, 1]  # two workers answered
    forked.clear()
    assert run_cli("serve", "--stdio", "-f", WORKED, "-j", "3", stdin=data) == one
    assert forked == [1, 1, 1]


def _count_forks(monkeypatch) -> list[int]:
    """A 1 for every worker serve forks from now on."""
    forked: list[int] = []
    fork = serve_module.batch.Workers._fork
    monkeypatch.setattr(serve_module.batch.Workers, "_fork", lambda self: forked.append(1) or fork(self))
    return forked


def test_j_forks_no_more_workers_than_the_cores_and_the_work(monkeypatch):
    """Issue 38 item 6: `serve -j 60` forked 60 workers for 2 lines. Now
    never more than the cores (sched_getaffinity), nor than one per
    SHARE_LINES lines of a batch with their own manifests, nor than the
    cores the rest of the machine leaves free (issue 40); fails with -j
    uncapped (60 forks) and with the shares cut by -j alone."""
    documents = [d for d in yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text()) if d]
    request = {"namespace": "llama-demo", "model": "llama-3-2-3b-instruct", "manifests": documents}
    data = "".join(json.dumps({"id": n, **request}) + "\n" for n in range(40)).encode()
    monkeypatch.setattr(serve_module.batch, "default_jobs", lambda: 4)
    forked = _count_forks(monkeypatch)
    free: list[int | None] = [None]  # the cores the rest of the machine leaves: None, all of them
    monkeypatch.setattr(serve_module.batch.Cores, "free", lambda self: self.most if free[0] is None else min(free[0], self.most))
    two = b"".join(data.splitlines(keepends=True)[:2])
    assert run_cli("serve", "--stdio", "-j", "60", stdin=two) == run_cli("serve", "--stdio", "-j", "1", stdin=two)
    assert forked == [1]  # 2 lines: one worker, not 60
    forked.clear()
    assert run_cli("serve", "--stdio", "-j", "60", stdin=data).code == 0
    assert forked == [1, 1]  # 40 lines: 40 // SHARE_LINES workers, though 4 cores are free
    forked.clear()
    monkeypatch.setattr(serve_module, "SHARE_LINES", 1)
    assert run_cli("serve", "--stdio", "-j", "60", stdin=data).code == 0
    assert forked == [1] * 4  # the cores
    forked.clear()
    free[0] = 1  # the rest of the machine keeps all but one core busy
    assert run_cli("serve", "--stdio", "-j", "60", stdin=data).code == 0
    assert forked == [1]


def test_free_cores_leave_out_what_others_keep_busy_not_what_serve_does(monkeypatch):
    """Cores.free: the machine's busy time (/proc/stat) less serve's own
    (this process's and its workers'), per second of wall time; fails when
    serve's own time counts as another process's (one busy worker would make
    serve fall back to one process on an idle machine)."""
    tick = os.sysconf("SC_CLK_TCK")
    readings = iter([(0.0, 0, 0.0), (1.0, 2 * tick, 0.5), (2.0, 4 * tick, 0.5), (3.0, 5 * tick, 0.5),
                     (3.01, 5 * tick, 0.5), (4.0, 6 * tick, 1.5)])
    monkeypatch.setattr(serve_module.batch.Cores, "_reading", staticmethod(lambda: next(readings)))
    cores = serve_module.batch.Cores(2)
    cores.spent(1.5)  # the workers' seconds
    assert cores.free() == 2  # two busy cores, all of them serve's
    assert cores.free() == 1  # two busy cores, none of them serve's: one left, serve's own process
    assert cores.free() == 1  # one core busy, another process's
    assert cores.free() == 1  # 10 ms: too short to tell, the last answer
    assert cores.free() == 2  # one core busy, serve's


def test_a_worker_that_has_grown_is_replaced(monkeypatch):
    """clingo keeps every symbol a process has made (issue 40: serve's memory
    grew 117 -> 155 MB over 10,000 requests): a worker whose own memory
    (Private_Dirty) grew by more than GROWN_BYTES since its first piece is
    replaced by a new fork; one that has not keeps answering. Fails when
    workers are never replaced."""
    def work(size: int) -> int:
        kept.append(bytearray(size))  # memory this worker keeps
        for page in range(0, size, 4096):
            kept[-1][page] = 1
        return os.getpid()

    kept: list[bytearray] = []
    monkeypatch.setattr(serve_module.batch, "GROWN_BYTES", 4 * 2**20)
    workers = serve_module.batch.Workers(work)
    try:
        first = workers.map([1], list)[0][0]
        assert workers.map([1], list)[0][0] == first  # not grown: the same worker
        assert workers.map([16 * 2**20], list)[0][0] == first  # grew: answers, then is replaced
        assert workers.map([1], list)[0][0] != first
    finally:
        workers.close()


def test_requests_with_their_own_manifests_are_never_grounded_here_with_workers(monkeypatch):
    """serve (more than one job) answers a request with its own manifests in
    a worker, which is replaced when it has grown, and only requests about
    the loaded cluster here, whose groundings the cluster bounds: so the
    process that lives as long as serve does keeps no request's symbols.
    Fails when a batch's own share is answered here."""
    grounded: list[int] = []  # the cases this process grounds, per batch
    worlds = serve_module.answer_worlds
    monkeypatch.setattr(serve_module, "answer_worlds", lambda cases: grounded.append(len(cases)) or worlds(cases))
    monkeypatch.setattr(serve_module.batch, "default_jobs", lambda: 2)
    documents = [d for d in yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text()) if d]
    request = {"namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}
    lines = [{"id": n, **request, **({"manifests": documents} if n % 2 else {})} for n in range(40)]
    answers = serve(*lines, argv=("-f", WORKED, "-j", "2"))
    assert [a["id"] for a in answers] == list(range(40)) and all("report" in a for a in answers)
    assert answers[0]["report"]["selected"] == answers[1]["report"]["selected"]
    assert grounded and not any(grounded)  # in this process: the workers' calls are theirs


# --- issue 18: serve survives any line and answers every valid one -------------------

VALID = {"id": "ok", "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}


def serve_bytes(data: bytes, *argv: str) -> list[str]:
    """The answer lines (split at "\\n" only, as a line reader would) of serve on raw input bytes."""
    result = run_cli("serve", "--stdio", "-f", WORKED, *argv, stdin=data)
    assert (result.code, result.stderr) == (0, ""), result.stderr
    assert result.stdout.endswith("\n")
    return result.stdout[:-1].split("\n")


def _nested_manifests(depth: int) -> bytes:
    model = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
             "spec": {"modelFormat": {"name": "f"}, "modelFramework": {"name": "t"}, "x": "X"}}
    line = json.dumps({"id": "deep", "model": "m", "manifests": [model]})
    return line.replace('"X"', "[" * depth + '"x"' + "]" * depth).encode()


#: One line of each class issue 18 found to break serve, and the error it gets.
BAD_LINES = {
    "invalid UTF-8": (b'{"id": 1, "model": "\xff"}', "line 1: not valid UTF-8: byte 0xff at byte 21"),
    "nested 200,000 deep": (b"[" * 200_000 + b"]" * 200_000, "line 1: not a JSON request: nested too deeply"),
    "unhashable profile": (b'{"profile": [], "model": "m"}', '"profile" must be one of v1.3, v1.2.2, code-v0.1.5'),
    "lone surrogate": (b'{"model": "a\\ud800"}', 'model: Invalid value: "a\\ud800": must be valid Unicode'),
    "NUL in a name": (b'{"namespace": "llama-demo", "model": "llama-3-2-3b-instruct\\u0000x"}',
                      'model: Invalid value: "llama-3-2-3b-instruct\\u0000x": must not contain a NUL character'),
    "NUL in a namespace": (b'{"namespace": "llama-demo\\u0000", "isvc": "llama-chat"}',
                           'namespace: Invalid value: "llama-demo\\u0000": must not contain a NUL character'),
    "id NaN": (b'{"id": NaN, "model": "m"}', "line 1: not a JSON request: NaN is not a JSON value"),
    "id -Infinity": (b'{"id": -Infinity, "model": "m"}', "line 1: not a JSON request: -Infinity is not a JSON value"),
    "id 1e400": (b'{"id": 1e400, "model": "m"}', "line 1: not a JSON request: the number 1e400 is out of range"),
    "too long": (b'{"id": 1, "model": "' + b"m" * 2**21 + b'"}', "line 1: the request is larger than 1Mi; raise the limit with --max-input-size"),
}


def test_issue18_every_bad_line_class_gets_an_error_and_the_next_line_its_answer():
    valid = serve_bytes(json.dumps(VALID).encode() + b"\n")[0]
    for name, (line, error) in BAD_LINES.items():
        assert serve_bytes(line + b"\n" + json.dumps(VALID).encode() + b"\n", "--max-input-size", "1Mi") == [
            json.dumps({"id": None, "error": error}), valid
        ], name


def test_issue18_manifests_nested_as_deep_as_a_request_can_are_answered():
    """The YAML writer recursed: manifests ~500 deep were an internal error (issue 18)."""
    for depth in (100, 500):
        answer = json.loads(serve_bytes(_nested_manifests(depth) + b"\n")[0])
        assert answer["id"] == "deep" and "report" in answer, answer


def test_issue18_line_breaks_and_surrogates_in_answers_are_escaped():
    """U+2028, U+2029, U+0085 end a line for many readers; a lone surrogate has no UTF-8."""
    lines = serve_bytes(b'{"id": "\\u2028\\ud800", "namespace": "\\u0085", "model": "x\\u2029"}\n')
    # The id's raw characters are escaped in the line; the message quotes the name itself (D-27).
    assert lines == ['{"id": "\\u2028\\ud800", "error": "clusterbasemodels.ome.io \\"x\\\\u2029\\" not found"}']


class _Zeros(io.RawIOBase):
    """`count` zero bytes without a newline (as /dev/zero), then `tail`."""

    def __init__(self, count: int, tail: bytes) -> None:
        self.left, self.tail = count, tail

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.left:
            n = min(self.left, len(buffer))
            buffer[:n] = bytes(n)
            self.left -= n
            return n
        n = min(len(self.tail), len(buffer))
        buffer[:n], self.tail = self.tail[:n], self.tail[n:]
        return n


def test_issue18_an_endless_line_takes_no_more_memory_than_the_limit():
    """A line without a newline (`serve < /dev/zero`) was read whole into
    memory; now memory is bounded by the line limit and the read-ahead's chunk."""
    stream = io.BufferedReader(_Zeros(160 * 2**20, b"\n" + json.dumps(VALID).encode() + b"\n"))
    out = io.StringIO()
    tracemalloc.start()
    try:
        serve_module.serve(None, stream, out, max_bytes=2**20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * serve_module.BATCH_BYTES + 2 * 2**20  # the read-ahead's chunk and its split, and the limit
    assert out.getvalue().splitlines()[0] == json.dumps(
        {"id": None, "error": "line 1: the request is larger than 1Mi; raise the limit with --max-input-size"}
    )


def test_issue18_a_huge_input_limit_is_not_allocated():
    """--max-input-size 2^63 - 1 (or above free memory) must not be allocated up front."""
    assert len(serve_bytes(json.dumps(VALID).encode() + b"\n", "--max-input-size", str(2**63 - 1))) == 1


def test_issue18_E4_serve_applies_the_candidate_limit_as_explain(tmp_path):
    """docs/oracle.md promises explain's answer: more than 1,000 candidates is E4's error."""
    model = {"apiVersion": "ome.io/v1beta1", "kind": "ClusterBaseModel", "metadata": {"name": "m"},
             "spec": {"modelFormat": {"name": "safetensors"}, "modelFramework": {"name": "transformers"}}}
    runtimes = [
        {"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": {"name": f"rt-{i:04d}"},
         "spec": {"supportedModelFormats": [{"modelFormat": {"name": "safetensors"}, "autoSelect": True,
                                             "modelFramework": {"name": "transformers"}}]}}
        for i in range(1001)
    ]
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all([model, *runtimes]))
    answers = serve({"id": 1, "model": "m"}, {"id": 2, "model": "m", "manifests": [model, *runtimes]}, argv=("-f", str(path)))
    error = "runtime candidate snapshot exceeds the CLI collection limit"
    assert answers == [{"id": 1, "error": error}, {"id": 2, "error": error}]
    assert run_cli("explain", "--model", "m", "-f", str(path)).stderr == f"error: {error}\n"


def test_issue18_memory_per_distinct_name_is_recycled():
    """Every cache serve fills from request names is bounded (issue 18: ~5 KB per distinct name)."""
    from ome_asp.render import reasons
    from ome_asp.solver import answer, facts

    for cached in (facts.quoted, reasons._text, answer._term, answer._arguments):
        assert cached.cache_info().maxsize is not None


def test_names_the_cluster_lacks_are_answered_as_one_stand_in_and_keep_nothing(monkeypatch):
    """Issue 38 item 5: serve kept 1.6-1.9 KB per new model name (each
    grounded alone, and clingo keeps every symbol a process makes). A name
    the namespace lacks is answered as one stand-in name of its kind is
    (D-321), the error and its hint naming the name asked: one grounding per
    namespace and kind, whatever the names, and no Python memory per name.
    Fails with each such name grounded (3 groundings become 405)."""
    grounded = []
    ask = serve_module.ask.ask
    monkeypatch.setattr(serve_module.ask, "ask", lambda cluster, queries, variant, **kw: (
        grounded.append(queries) or ask(cluster, queries, variant, **kw)))
    oracle = serve_module.Oracle(serve_module.load([WORKED]))
    answers = serve_module.respond_all(
        [{"namespace": "llama-demo", "model": name} for name in ("zz", "llama-3-2-3b-instruc", "-0")]
        + [{"namespace": "llama-demo", "isvc": "llama-cht"}, {"namespace": "other", "model": "zz"}],
        lambda profile: oracle)
    for answer, argv in zip(answers, (["--model", "zz"], ["--model", "llama-3-2-3b-instruc"], ["--model", "-0"],
                                      ["--isvc", "llama-cht"])):
        error, *hint = run_cli("explain", *argv, "-n", "llama-demo", "-f", WORKED).stderr.splitlines()
        assert [f"error: {answer['error']}", *([f"hint: {answer['hint']}"] if "hint" in answer else [])] == [error, *hint]
    assert answers[4] == answers[0]
    # the admission; other's model stand-in (other has no object: the stand-in namespace, -0);
    # llama-demo's model and isvc stand-ins, together
    assert [len(queries) for queries in grounded] == [0, 1, 2]
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(400):
        serve_module.respond_all([{"namespace": "llama-demo", "model": f"no-such-model-{n}"}], lambda profile: oracle)
    per_name = (tracemalloc.get_traced_memory()[0] - before) / 400
    tracemalloc.stop()
    assert len(grounded) == 3 and per_name < 20  # bytes


_LIBC = ctypes.CDLL("libc.so.6")  # /proc/self/statm already ties this test to Linux


def _rss() -> int:
    """The process's resident memory, after the memory freed so far is given
    back: without malloc_trim, glibc keeps freed arenas resident or not as
    fragmentation falls, which moved the floor by 15 MiB between runs with no leak."""
    gc.collect()
    _LIBC.malloc_trim(0)
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _Requests(io.RawIOBase):
    """Request lines made as they are read; `marks` records the process's
    memory when the given line numbers are first handed out."""

    def __init__(self, lines, marks: dict[int, int]) -> None:
        self.lines, self.marks, self.pending, self.count = iter(lines), marks, b"", 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.pending:
            line = next(self.lines, None)
            if line is None:
                return 0
            self.count += 1
            if self.count in self.marks:
                self.marks[self.count] = _rss()
            self.pending = line
        n = min(len(buffer), len(self.pending))
        buffer[:n], self.pending = self.pending[:n], self.pending[n:]
        return n


class _Answers(io.TextIOBase):
    """serve's output, each answer line handed to `check` as it is written
    and then dropped."""

    def __init__(self, check) -> None:
        self.check, self.pending, self.count = check, "", 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            self.check(self.count, line)
            self.count += 1
        return len(text)


def test_issue18_soak_10000_requests_every_bad_line_class_mixed_with_valid_ones():
    """A long-running serve: every valid request gets explain's answer, every
    bad line its error, and memory stays flat (issue 18's done-when)."""
    manifests = yaml.safe_load_all((FIXTURES / "worked-example" / "manifests.yaml").read_text())
    valid = [
        ({"namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}, ["--model", "llama-3-2-3b-instruct", "-n", "llama-demo"]),
        ({"namespace": "llama-demo", "isvc": "llama-chat"}, ["--isvc", "llama-chat", "-n", "llama-demo"]),
        ({"namespace": "other", "model": "llama-3-2-3b-instruct"}, ["--model", "llama-3-2-3b-instruct", "-n", "other"]),
        ({"namespace": "llama-demo", "model": "no-such-model"}, ["--model", "no-such-model", "-n", "llama-demo"]),
        ({"model": "x\u2028y"}, ["--model", "x\u2028y"]),
    ]
    expected = []
    for _request, argv in valid:
        result = run_cli("explain", *argv, "-f", WORKED, "-o", "json")
        expected.append({"report": json.loads(result.stdout)} if result.code == 0 else error_answer(result.stderr))
    with_manifests = {"namespace": "llama-demo", "model": "llama-3-2-3b-instruct", "manifests": list(manifests)}
    expected_manifests = {"report": expected[0]["report"]}
    bad = {name: line for name, (line, _) in BAD_LINES.items() if name not in ("nested 200,000 deep", "too long")}
    bad["nested 20,000 deep"] = b"[" * 20_000 + b"]" * 20_000
    bad["too long"] = b'{"model": "' + b"m" * 70_000 + b'"}'
    bad["blank"] = b"   "
    cycle = [line for line in bad.values()]
    plan = []  # (line, what the answer must be or None for no answer)
    n = 0
    while len(plan) < 10_000:
        for line in cycle:
            plan.append((line, "error"))
            request, _ = valid[n % len(valid)]
            plan.append((json.dumps({"id": n, **request}).encode(), n % len(valid)))
            n += 1
        plan.append((json.dumps({"id": "m", **with_manifests}).encode(), "manifests"))
    plan = plan[:10_000]
    marks = dict.fromkeys(range(2_000, 10_001, 1_000), 0)
    wrong: list[str] = []

    def check(number: int, text: str) -> None:
        line, want = plan[number]
        answer = json.loads(text)
        if want == "error":
            ok = set(answer) == {"id", "error"}
        elif want == "manifests":
            ok = answer == {"id": "m", **expected_manifests}
        else:
            ok = {k: v for k, v in answer.items() if k != "id"} == expected[want]
        if not ok:
            wrong.append(f"line {number}: {line[:100]!r}")

    # answers are checked as they come and not kept: the memory measured is serve's own
    out = _Answers(check)
    serve_module.serve(lambda profile: serve_module.load([WORKED]), io.BufferedReader(_Requests(
        (line + b"\n" for line, _ in plan), marks)), out, max_bytes=64 * 1024)
    assert (out.count, out.pending) == (len(plan), "")
    assert not wrong, wrong[:5]
    # a leak raises the floor; a batch in flight (a 70 KB line, the manifests
    # request) only makes a spike, so the lowest samples of each end are compared
    early, late = min(marks[n] for n in (2_000, 3_000, 4_000)), min(marks[n] for n in (8_000, 9_000, 10_000))
    assert late - early < 8 * 2**20, f"memory grew by {(late - early) >> 10} KiB: {marks}"


def placeless(document: dict) -> dict:
    """A report with its input warnings' locations taken out (issue 16: they name
    the file, `<stdin>` for a request's manifests)."""
    key = "inputWarnings" if document.get("kind") == "RuntimeSelection" else "warnings"
    if key not in document:
        return document
    return {**document, key: messages("".join(f"warning: {w}\n" for w in document[key]))}


def test_issue28_blank_and_whitespace_lines_get_an_error_answer():
    """docs/oracle.md: a line that is not a JSON object is answered (was: nothing)."""
    request = json.dumps({"id": 1, "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}).encode()
    out = io.StringIO()
    serve_module.serve(None, io.BufferedReader(io.BytesIO(b"\n \t\r\n" + request + b"\n  ")), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[:2] == [{"id": None, "error": "line 1: not a JSON request: a blank line"},
                           {"id": None, "error": "line 2: not a JSON request: a blank line"}]
    assert answers[2]["id"] == 1 and answers[3] == {"id": None, "error": "line 4: not a JSON request: a blank line"}
    assert len(answers) == 4  # the newline that ends the last request starts no line
