"""Warm mode: `serve --stdio` answers JSON lines exactly as explain -o json
answers the same queries, from a preloaded cluster or per-request manifests."""

from __future__ import annotations

import copy
import json
from unittest import mock

import yaml
from conftest import FIXTURES, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ome_asp.commands import serve as serve_module
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


def test_bad_requests_get_an_error_line_and_serving_goes_on():
    answers = serve("not json", {"id": 1, "model": "m", "isvc": "i"}, {"id": 2, "namespace": "x", "model": "zz"},
                    {"id": 3, "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"})
    assert answers[0] == {"id": None, "error": "line 1: not a JSON request: Expecting value: line 1 column 1 (char 0)"}
    assert answers[1]["error"].startswith('a request needs "namespace"')
    assert answers[2] == {"id": 2, "error": 'clusterbasemodels.ome.io "zz" not found'}  # E4
    assert answers[3]["report"]["selected"]["name"] == "team-llama"


def test_stdin_cannot_be_both_cluster_and_requests():
    result = run_cli("serve", "--stdio", "-f", "-")
    assert (result.code, result.stderr) == (2, "error: serve reads its requests from stdin, so -f - cannot be the cluster\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters())
def test_self_contained_cases_answer_like_explain(tmp_path_factory, case):
    documents, query = case
    path = tmp_path_factory.mktemp("case") / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    target = ["--isvc", query["isvc"]] if "isvc" in query else ["--model", query["model"]]
    expected = run_cli("explain", *target, "-n", query["namespace"], "-f", str(path), "-o", "json")
    (answer,) = serve({"id": 0, "manifests": documents, **query}, argv=())
    if expected.code == 0:
        assert answer["report"] == json.loads(expected.stdout)
    else:
        assert "error: " + answer["error"] in expected.stderr.splitlines()


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
    st.text(), st.integers(), st.floats(), st.none(), st.booleans(), st.just("\x85"), st.just("2024-01-01"),
    st.just("yes"), st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.clusters(), st.data())
def test_manifests_read_as_they_are_answer_like_their_yaml_text(case, data):
    """serve reads a request's manifests without writing them as YAML when
    that text would read back as them: every answer, error or report, is the
    one of the YAML path, also with odd values put anywhere."""
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
    request = {"id": 0, "manifests": documents, **query}
    with mock.patch.object(serve_module, "_reads_back", lambda manifests: False):
        expected = serve_module.respond(request, None)
    assert serve_module.respond(request, None) == expected
