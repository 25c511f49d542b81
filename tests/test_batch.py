"""Batches over processes (issue 13): `explain --all-models` and `select
--all` give the same bytes, streams and exit code for every -j and every
chunking, and the same text as the whole List dumped at once."""

from __future__ import annotations

import json
import os
import sys

import pytest
import yaml
from conftest import FIXTURES, ROOT, run_cli
from manifests import model, runtime, write

from ome_asp.commands import batch
from ome_asp.render import report

sys.path.insert(0, str(ROOT / "benchmarks"))
from clusters import NAMESPACE, cluster_documents  # noqa: E402


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A generated cluster with a model explain cannot answer for (M4: an error
    item, exit 1) and a runtime whose size range lacks a bound (an outcome
    under code-v0.1.5)."""
    documents = cluster_documents(30, models=7, seed=13) + [
        model("nofmt", modelFormat={"version": "1"}),
        runtime("half", NAMESPACE, modelSizeRange={"min": "1B"}),
    ]
    return write(tmp_path_factory.mktemp("batch"), *documents)


def _runs(argv: list[str], monkeypatch) -> list:
    """The run with -j 1, -j 2, and -j 2 with chunks of one query."""
    runs = [run_cli(*argv, "-j", "1"), run_cli(*argv, "-j", "2")]
    monkeypatch.setattr(batch, "CHUNK", 1)
    runs.append(run_cli(*argv, "-j", "2"))
    return runs


@pytest.mark.parametrize("profile", ["v1.3", "code-v0.1.5"])
@pytest.mark.parametrize("output", ["json", "yaml", "table", "wide"])
def test_explain_all_models_is_the_same_for_every_j(cluster, output, profile, monkeypatch):
    """issue 13: -j N = -j 1, byte for byte (stdout, stderr, exit code)."""
    argv = ["explain", "--all-models", "-n", NAMESPACE, "-f", cluster, "-o", output, "--profile", profile]
    one, *others = _runs(argv, monkeypatch)
    assert one.code in (1, 3) and one.stdout
    for other in others:
        assert (other.code, other.stdout, other.stderr) == (one.code, one.stdout, one.stderr)
    if output in ("json", "yaml"):
        document = json.loads(one.stdout) if output == "json" else yaml.safe_load(one.stdout)
        assert len(document["items"]) == 8
        written = report.to_json(document) + "\n" if output == "json" else report.to_yaml(document)
        assert one.stdout == written  # the List written item by item is the List dumped whole


def test_select_all_is_the_same_for_every_j(monkeypatch):
    worked = str(FIXTURES / "worked-example")
    for output in ("text", "json", "yaml"):
        one, *others = _runs(["select", "--all", "-f", worked, "-o", output], monkeypatch)
        assert one.stdout
        for other in others:
            assert (other.code, other.stdout, other.stderr) == (one.code, one.stdout, one.stderr)


@pytest.mark.parametrize("output, text", [
    ("json", '{\n  "apiVersion": "ome-asp/v1alpha1",\n  "kind": "List",\n  "items": []\n}\n'),
    ("yaml", "apiVersion: ome-asp/v1alpha1\nkind: List\nitems: []\n"),
])
def test_an_empty_batch_is_an_empty_list(tmp_path, output, text):
    result = run_cli("explain", "--all-models", "-f", write(tmp_path, runtime("rt")), "-o", output)
    assert (result.code, result.stdout) == (0, text)
    assert text == (report.to_json(yaml.safe_load(text)) + "\n" if output == "json" else report.to_yaml(yaml.safe_load(text)))


@pytest.mark.parametrize("items, jobs, most, sizes", [
    (0, 2, 50, [0]),
    (1, 2, 50, [1]),
    (5, 2, 50, [3, 2]),
    (100, 1, 50, [50, 50]),
    (101, 2, 50, [34, 34, 33]),
    (7, 16, 50, [1] * 7),
])
def test_chunks_are_in_order_balanced_and_bounded(items, jobs, most, sizes):
    chunks = batch.chunks(list(range(items)), jobs, most)
    assert [len(c) for c in chunks] == sizes
    assert [i for c in chunks for i in c] == list(range(items))


def test_jobs_default_to_the_cores_the_process_may_use():
    assert batch.default_jobs() == len(os.sched_getaffinity(0))
    result = run_cli("explain", "--all-models", "-j", "0", "-f", str(FIXTURES / "worked-example"))
    assert (result.code, result.stderr) == (1, "error: argument -j/--jobs: must be a positive integer, got '0'\n")
