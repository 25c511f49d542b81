"""The spec's worked examples through the whole command line (13.x, 14.x).

Expected bytes live in tests/golden/ (its README says which are verbatim from
the spec and which were derived by its rules)."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES, GOLDEN, run_cli

WORKED = "worked-example"
MODEL = "llama-3-2-3b-instruct"

TABLES = [
    pytest.param(WORKED, ["--model", MODEL, "-n", "llama-demo"], "worked-example/explain-model.txt", id="13.4-E8-E11-O1-O2-O3-model"),
    pytest.param(WORKED, ["--isvc", "llama-chat", "-n", "llama-demo"], "worked-example/explain-isvc.txt", id="13.4-E7-isvc-same-table"),
    pytest.param("variants/13.5-raise-small-priority", ["--model", MODEL, "-n", "llama-demo"], "13.5-raise-small-priority/explain-model.txt", id="13.5-S3-O2-raised-priority"),
    pytest.param("variants/13.6-delete-team-llama", ["--model", MODEL, "-n", "llama-demo"], "13.6-delete-team-llama/explain-model.txt", id="13.6-O5-cluster-winner"),
    pytest.param("variants/13.6-no-size", ["--model", MODEL, "-n", "llama-demo"], "13.6-no-size/explain-model.txt", id="13.6-O3-O4-no-size-name-order"),
    pytest.param("examples/14.1-no-rows", ["--model", MODEL, "-n", "team-a"], "14.1-no-rows/explain-model.txt", id="14.1-E10-E12-E13-E14-no-rows"),
    pytest.param("examples/14.2-wrapped-runtime", ["--model", "qwen2-5-7b", "-n", "demo"], "14.2-wrapped-runtime/explain-model.txt", id="14.2-E12-E13-E15-E16-wrapped-runtime"),
    pytest.param("examples/14.3-deployment-mode", ["--isvc", "llama-3-70b", "-n", "llama-demo"], "14.3-deployment-mode/explain-isvc.txt", id="14.3-D3-D4-D5-Q4-isvc"),
    pytest.param("examples/14.3-deployment-mode", ["--model", "llama-3-3-70b-instruct", "-n", "llama-demo"], "14.3-deployment-mode/explain-model.txt", id="14.3-D7-model-skips-mode"),
    pytest.param("examples/14.3-deployment-mode-explicit", ["--isvc", "llama-3-70b", "-n", "llama-demo"], "14.3-deployment-mode-explicit/explain-isvc.txt", id="14.3-E5-X8-explicit-runtime"),
]


@pytest.mark.parametrize("fixture, query, golden", TABLES)
def test_explain_table_matches_golden(fixture, query, golden):
    result = run_cli("explain", *query, "-f", str(FIXTURES / fixture))
    assert result.code == 0
    assert result.stdout == (GOLDEN / golden).read_text()
    stderr_file = GOLDEN / golden.replace(".txt", ".stderr.txt")
    assert result.stderr == (stderr_file.read_text() if stderr_file.exists() else "")


MESSAGES = [
    pytest.param("examples/14.2-wrapped-runtime", ["--isvc", "qwen2-5-7b", "-n", "demo"], "14.2-wrapped-runtime/no-runtime-message.txt", id="14.2-O8-Q7-counted-not-listed"),
    pytest.param("examples/14.3-deployment-mode", ["--isvc", "llama-3-70b", "-n", "llama-demo"], "14.3-deployment-mode/no-runtime-message.txt", id="14.3-O8-D5-excluded"),
]


@pytest.mark.parametrize("fixture, query, golden", MESSAGES)
def test_no_runtime_message_matches_golden(fixture, query, golden):
    result = run_cli("explain", *query, "-f", str(FIXTURES / fixture), "-o", "json")
    assert result.code == 0
    report = json.loads(result.stdout)
    assert report["selected"] is None
    assert report["message"] + "\n" == (GOLDEN / golden).read_text()


def test_worked_example_json_report():
    """13.2/13.3: scores, distances and ranks exactly; the first row is selected (O5)."""
    report = json.loads(run_cli("explain", "--model", MODEL, "-n", "llama-demo", "-f", str(FIXTURES / WORKED), "-o", "json").stdout)
    assert report["apiVersion"] == "ome-asp/v1alpha1"
    assert report["kind"] == "RuntimeExplainReport"
    assert report["profile"] == "v1.3"
    assert report["query"] == {"namespace": "llama-demo", "model": MODEL}
    assert report["selected"] == {"kind": "ServingRuntime", "namespace": "llama-demo", "name": "team-llama"}
    assert report["message"] is None
    got = [(r["runtime"], r["rank"], r["score"], r["priority"], r["weight"], r["distance"]) for r in report["rows"]]
    assert got == [
        ("team-llama", 1, 2, 1, 2, "0"),
        ("vllm-llama", 2, 6, 2, 6, "0"),
        ("srt-llama-small", 3, 6, 3, 6, "7000000000"),
        ("srt-llama-large", 4, 6, 3, 6, "69000000000"),
    ]
    assert all(r["compatible"] and r["reason"] is None and r["failedCheck"] is None and r["reasons"] == [] for r in report["rows"])


def test_isvc_query_reports_resolved_model():
    """E7/M1: an --isvc query names the ISVC and the model it resolved to."""
    report = json.loads(run_cli("explain", "--isvc", "llama-chat", "-n", "llama-demo", "-f", str(FIXTURES / WORKED), "-o", "json").stdout)
    assert report["query"] == {"namespace": "llama-demo", "isvc": "llama-chat", "model": MODEL}
