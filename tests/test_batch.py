"""Batches over processes (issue 13): `explain --all-models` and `select
--all` give the same bytes, streams and exit code for every -j and every
chunking, and the same text as the whole List dumped at once; each chunk
grounded on what its queries read gives what the whole cluster gives (D-120)."""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, ROOT, run_cli
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from manifests import model, runtime, write

from ome_asp.analysis import batch
from ome_asp.cli import main
from ome_asp.input import profiles
from ome_asp.input.loader import load
from ome_asp.input.objects import Query
from ome_asp.render import report
from ome_asp.solver.sight import Sight
from ome_asp.testing import builders, strategies

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


@pytest.mark.parametrize("keys, jobs, most, cut", [
    ("aabbbcd", 1, 50, ["aabbbcd"]),
    ("aabbbcd", 1, 3, ["aa", "bbb", "cd"]),  # a namespace is never split where it fits a chunk
    ("aabbbbbbbc", 1, 4, ["aa", "bbbb", "bbbc"]),  # one longer than a chunk: even pieces, the last shared
    ("aaaaaaa", 3, 50, ["aaa", "aa", "aa"]),  # one namespace: as balanced as without keys
    ("abcdefg", 2, 50, ["abcd", "efg"]),
])
def test_chunks_are_cut_where_the_namespace_changes(keys, jobs, most, cut):
    """D-120: each chunk grounds its namespaces' runtimes, so a namespace cut in
    two is grounded twice."""
    assert ["".join(c) for c in batch.chunks(list(keys), jobs, most, key=lambda k: k)] == cut


NAMESPACED = {"ServingRuntime", "BaseModel", "InferenceService"}


@st.composite
def namespaced_clusters(draw):
    """Several strategies.clusters() in one, each one's namespaces renamed
    apart (team-a-0, team-a-1, ...): many namespaces, the same names in
    several of them and at cluster scope (the first of a kind and name kept),
    admission denials (W3, W4) here and there."""
    documents, seen = [], set()
    for k, (part, _) in enumerate(draw(st.lists(strategies.clusters(max_runtimes=5), min_size=2, max_size=3))):
        for document in part:
            if document["kind"] in NAMESPACED:
                document["metadata"]["namespace"] = f"{document['metadata'].get('namespace', 'default')}-{k}"
            if builders.document_key(document) not in seen:
                seen.add(builders.document_key(document))
                documents.append(document)
    return documents


# The smallest cluster whose chunks must admit another namespace's runtime
# (issue 39: the mutation below was caught only by Hypothesis, after minutes).
DENIED_ELSEWHERE = [model("m", "a"), model("m", "b"),
                    runtime("w3", "a", acceleratorRequirements={"acceleratorClasses": ["nvidia-b300"]})]


@pytest.mark.parametrize("command", [["explain", "--all-models", "-n", "default-0", "-o", "json"],
                                     ["select", "--all", "-o", "json"]], ids=["explain", "select"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents=namespaced_clusters(), profile=st.sampled_from(sorted(profiles.PROFILES)))
@example(documents=DENIED_ELSEWHERE, profile="v1.3")
def test_chunks_grounded_on_their_namespaces_answer_as_the_whole_cluster(command, documents, profile):
    """D-120: each query in a chunk of its own, grounded on what it reads
    (sight.Sight: its namespace, the cluster-scoped objects), gives the bytes
    of the batch grounded on the whole cluster: stdout with every report's
    denials (I9, those of the namespaces a chunk does not read included),
    stderr and exit code. The example fails with Sight.unseen taking the
    union of the parts' namespaces for their intersection (the chunk of
    namespace b then never admits a's runtime w3, denied by W3)."""
    with tempfile.TemporaryDirectory() as directory, pytest.MonkeyPatch.context() as patch:
        path = Path(directory) / "cluster.yaml"
        path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
        argv = [*command, "-f", str(path), "--profile", profile, "-j", "1"]
        patch.setattr(Sight, "part", lambda sight, queries: sight.cluster)
        whole = run_cli(*argv)
        patch.undo()
        patch.setattr(batch, "CHUNK", 1)
        alone = run_cli(*argv)
    assert (alone.code, alone.stdout, alone.stderr) == (whole.code, whole.stdout, whole.stderr)


def test_jobs_default_to_the_cores_the_process_may_use():
    assert batch.default_jobs() == len(os.sched_getaffinity(0))
    result = run_cli("explain", "--all-models", "-j", "0", "-f", str(FIXTURES / "worked-example"))
    assert (result.code, result.stderr) == (1, "error: argument -j/--jobs: must be a positive integer, got '0'\n")


class _Writes(io.StringIO):
    """stdout, its write calls counted."""

    writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def test_explain_chunks_hold_at_most_rows_and_write_report_by_report(cluster, monkeypatch):
    """D-302 (issue 40): explain --all-models cuts its queries into chunks of
    at most batch.ROWS rows (queries times their candidates, here 31), each
    its own grounding, and writes each report as it was rendered, the same
    bytes. Fails when cut ignores the candidates (one chunk of 8 queries),
    and when a chunk's reports are joined before they are written (3 writes)."""
    argv = ["explain", "--all-models", "-n", NAMESPACE, "-f", cluster, "-o", "json", "-j", "1"]
    whole = run_cli(*argv)
    groundings = []
    ask = batch.ask.ask
    monkeypatch.setattr(batch.ask, "ask", lambda cluster, queries, *a, **k: groundings.append(len(queries)) or ask(cluster, queries, *a, **k))
    monkeypatch.setattr(batch, "ROWS", 100)
    out = _Writes()
    code = main(argv, stdin=io.BytesIO(), stdout=out, stderr=io.StringIO())
    assert (code, out.getvalue()) == (whole.code, whole.stdout)
    assert groundings == [3, 3, 2] and Sight(load([cluster])).candidates(Query(NAMESPACE, model="m")) == 31
    assert out.writes >= 8 + 2  # the List's head, each report, its tail
    assert batch.cut([Query(NAMESPACE, model="m")] * 3, 1, lambda query: 0) == [[(i, Query(NAMESPACE, model="m")) for i in range(3)]]  # no candidates
