"""Differential and metamorphic property tests of the engine, through its CLI (spec v1.3).

The engine is driven exactly as a user would: manifests written to a file as
``yaml.safe_dump_all`` writes them, then ``ome_asp.cli.main(["explain", ...])``. The oracle
is tests/reference_model.py, written from the spec alone; the clusters come
from ``ome_asp.testing.strategies.clusters()``.
"""

from __future__ import annotations

import copy
import io
import json
import os
import tempfile

import reference_model as ref
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ome_asp.analysis.find import PROPERTIES
from ome_asp.cli import main as cli_main
from ome_asp.testing import strategies

# --------------------------------------------------------------------------
# Driving the CLI
# --------------------------------------------------------------------------


def run_command(documents: list[dict], *argv: str):
    """Run ome-asp's ``argv`` on ``documents`` (one file); returns (exit code, stdout, stderr)."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "cluster.yaml")
        with open(path, "w", encoding="utf-8") as stream:
            # libyaml's emitter: safe_dump_all's text (the same on 2,000 drawn clusters),
            # in a fifth of its CPU (the pure-Python emitter was a sixth of an explain's)
            yaml.dump_all(documents, stream, Dumper=yaml.CSafeDumper)
        stdout, stderr = io.StringIO(), io.StringIO()
        code = cli_main([*argv, "-f", path], stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def run_explain(documents: list[dict], query: dict, output: str | None = "json", extra: tuple = ()):
    """Run ``explain`` on ``documents`` for ``query``; returns (exit code, stdout, stderr)."""
    target = ["--isvc", query["isvc"]] if "isvc" in query else ["--model", query["model"]]
    output_flag = () if output is None else ("-o", output)
    return run_command(documents, "explain", *target, "-n", query["namespace"], *output_flag, *extra)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


def engine_report(documents: list[dict], query: dict) -> dict:
    """The engine's JSON report, or ``{"error": msg}`` (checked to be exit 1 + one error line)."""
    code, stdout, stderr = run_explain(documents, query)
    errors = error_lines(stderr)
    if code == 1 and errors:
        assert len(errors) == 1, stderr
        return {"error": errors[0][len("error: "):]}
    assert code == 0, f"exit {code}\nstderr:\n{stderr}"
    assert not errors, stderr
    return json.loads(stdout)


def differences(actual, expected, path: str = "") -> list[str]:
    """Readable field-by-field differences between two JSON values."""
    if isinstance(actual, dict) and isinstance(expected, dict) and actual.keys() == expected.keys():
        return [line for key in actual
                for line in differences(actual[key], expected[key], f"{path}.{key}")]
    if isinstance(actual, list) and isinstance(expected, list) and len(actual) == len(expected):
        return [line for i, (a, e) in enumerate(zip(actual, expected))
                for line in differences(a, e, f"{path}[{i}]")]
    if actual != expected:
        return [f"{path or '.'}:\n  engine:    {actual!r}\n  reference: {expected!r}"]
    return []


def reference(documents: list[dict], query: dict) -> dict:
    return ref.reference_report(documents, **query)


def selected_key(selected: dict) -> tuple:
    return selected["kind"], selected["namespace"], selected["name"]


def assert_holds(name: str, answers: dict, documents: list[dict]) -> None:
    """A property of `ome-asp find`'s catalogue (docs/find.md), as it states
    its violation on explain's answers (ome_asp/analysis/find.py,
    PROPERTIES: one statement for find's verification and these tests)."""
    prop = PROPERTIES[name]
    assert not prop.violated(answers, documents), f"{name} ({prop.rules}): {prop.statement}"


# --------------------------------------------------------------------------
# Differential: engine == reference model
# --------------------------------------------------------------------------


def assert_same_report(expected: dict, code: int, stdout: str, stderr: str) -> None:
    """explain -o json's run equals the reference model's report, or its error."""
    if "error" in expected:
        assert code == 1, f"expected error {expected['error']!r}; exit {code}\n{stdout}{stderr}"
        assert error_lines(stderr) == ["error: " + expected["error"]], stderr
        return
    assert code == 0, f"exit {code}\nstderr:\n{stderr}"
    actual = json.loads(stdout)
    # `warnings` and `denied` say what stderr says (issue 16): ome-asp's own
    # input messages, which the model (written from docs/spec.md) does not produce
    del actual["warnings"], actual["denied"]
    assert actual == expected, "\n".join(differences(actual, expected))


@settings(max_examples=300, deadline=None)
@given(strategies.clusters())
def test_engine_matches_reference_model(cluster):
    """Every field of the JSON report (E8-E10, E14, O1-O8), or the E4 error, equals the oracle's."""
    documents, query = cluster
    expected = reference(documents, query)
    assert_same_report(expected, *run_explain(documents, query))


@settings(max_examples=100, deadline=None)
@given(strategies.clusters())
def test_engine_matches_reference_model_under_v1_2_2(cluster):
    """Profile v1.2.2 (docs/profiles.md section 2: D1, D3, Z3 change explain): the same
    comparison; its Z3 outcome exits 4 (issue 16). An
    InferenceService without spec.model is an input error there (M6), which
    the model does not read, so such clusters are left out. With -o json an
    outcome is the report with `outcome` and `detail`."""
    documents, query = cluster
    assume(all("model" in d["spec"] for d in documents if d.get("kind") == "InferenceService"))
    expected = ref.reference_report(documents, **query, profile="v1.2.2")
    code, stdout, stderr = run_explain(documents, query, extra=("--profile", "v1.2.2"))
    if expected.get("error", "").startswith("outcome "):  # -o json: the report with outcome and detail
        report = json.loads(stdout)
        assert (code, report["rows"]) == (4, []), stderr
        assert f"outcome {report['outcome']}: {report['detail']}" == expected["error"]
        return
    assert_same_report(expected, code, stdout, stderr)


# --------------------------------------------------------------------------
# Metamorphic properties (engine against itself)
# --------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(strategies.clusters(), st.data())
def test_document_order_never_changes_output_I10(cluster, data):
    """I10: permuting the documents changes none of the outputs that read the
    loaded cluster's order (the loader's sorts): the facts, whose signatures
    and weights are numbered in runtime order (--show facts, a reproduction's
    facts.lp), and select --all, which answers the InferenceServices in that
    order; nor their exit codes. explain's table and JSON under any layout:
    test_determinism."""
    documents, query = cluster
    shuffled = data.draw(st.permutations(documents))
    target = ["--isvc", query["isvc"]] if "isvc" in query else ["--model", query["model"]]
    for argv in (("explain", *target, "-n", query["namespace"], "--show", "facts"), ("select", "--all", "-j", "1")):
        assert run_command(shuffled, *argv)[:2] == run_command(documents, *argv)[:2]


@settings(max_examples=100, deadline=None)
@given(strategies.clusters())
def test_every_catalogue_property_of_one_cluster_holds(cluster):
    """The properties of `ome-asp find`'s catalogue that ask about one
    cluster (O1, O1-O4, O5, Q2, Q8, W2), on random clusters."""
    documents, query = cluster
    report = engine_report(documents, query)
    for name, prop in PROPERTIES.items():
        if prop.variant is None:
            assert_holds(name, {"v1.3": report}, documents)


FRESH_NAMES = ("aa-off", "rt-b-off", "zz-off")  # sort before, between and after RUNTIME_NAMES


@st.composite
def disabled_runtimes(draw, like: tuple):
    """A disabled runtime (any kind, any namespace) with a name no runtime uses."""
    return draw(strategies.runtimes(name=draw(st.sampled_from(FRESH_NAMES)), like=like,
                                    disabled=True))


@settings(max_examples=100, deadline=None)
@given(strategies.clusters(), st.data())
def test_adding_a_disabled_runtime_changes_no_yes_row_Q2_W2(cluster, data):
    """Q2/W2: a disabled runtime is admitted but never qualifies, so Yes rows and winner stay."""
    documents, query = cluster
    like = tuple(d["spec"] for d in documents if d["kind"] in ("BaseModel", "ClusterBaseModel"))
    extra = data.draw(disabled_runtimes(like))
    before = engine_report(documents, query)
    after = engine_report(documents + [extra], query)
    assert_holds("adding-disabled-runtime-changes-nothing", {"before": before, "after": after}, documents + [extra])
    if "error" in before:
        return
    added = [r for r in after["rows"] if r["runtime"] == extra["metadata"]["name"]]
    candidate = extra["kind"] == ref.CSR or (
        extra["metadata"].get("namespace", "default") == query["namespace"])
    assert [(r["compatible"], r["failedCheck"]) for r in added] == (
        [(False, "Q2")] if candidate else [])


def qualifying_runtime(documents: list[dict], query: dict, name: str) -> tuple[dict, list[dict]]:
    """A ServingRuntime in the query namespace made to pass Q2-Q8 for the query's model.

    Its one entry copies the resolved model's format, framework, versions,
    architecture and quantization (no pipeline, range or mode), sets
    ``autoSelect: true`` and scores 2. For an ISVC query it lists the requested
    accelerator classes, and AcceleratorClass objects are added for those
    missing so that W3 admits it. Returns (runtime, extra AcceleratorClasses).
    """
    report = reference(documents, query)
    assume("error" not in report)
    cluster = ref.Cluster(documents)
    model = cluster.resolve_model(query["namespace"], report["query"]["model"])["spec"]
    assume("modelFramework" in model)  # I7: no entry can match a framework-less model
    e = {"modelFormat": {"name": model["modelFormat"]["name"]},
         "modelFramework": {"name": model["modelFramework"]["name"]},
         "autoSelect": True}
    for part in ("modelFormat", "modelFramework"):
        if "version" in model[part]:
            e[part]["version"] = model[part]["version"]
    for field in ("modelArchitecture", "quantization"):
        if field in model:
            e[field] = model[field]
    spec: dict = {"supportedModelFormats": [e]}
    classes: list[dict] = []
    if "isvc" in query:
        requested = ref.requested_accelerator_classes(
            cluster.isvcs[(query["namespace"], query["isvc"])])
        assume("" not in requested)  # A4: nothing can list the empty class
        if requested:
            spec["acceleratorRequirements"] = {"acceleratorClasses": sorted(requested)}
        classes = [strategies.accelerator_class(c) for c in sorted(requested)
                   if c not in cluster.accelerator_classes]
    runtime = {"apiVersion": strategies.API_VERSION, "kind": ref.SR,
               "metadata": {"name": name, "namespace": query["namespace"]}, "spec": spec}
    return runtime, classes


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(strategies.clusters(), st.sampled_from(FRESH_NAMES))
def test_a_qualifying_namespaced_runtime_ranks_first_O1(cluster, name):
    """O1: with a qualifying ServingRuntime in the namespace, a ServingRuntime is selected
    and every Yes ServingRuntime row comes before every Yes ClusterServingRuntime row."""
    documents, query = cluster
    runtime, classes = qualifying_runtime(documents, query, name)
    documents = documents + classes + [runtime]
    expected_row = [r for r in reference(documents, query)["rows"]
                    if r["runtime"] == name and r["kind"] == ref.SR]
    assume(expected_row and expected_row[0]["compatible"])  # e.g. an unparseable model version
    report = engine_report(documents, query)
    assert any(r["runtime"] == name and r["kind"] == ref.SR and r["compatible"]
               for r in report["rows"])
    for prop in ("namespaced-first", "selected-is-first-of-order"):
        assert_holds(prop, {"v1.3": report}, documents)
    assert report["selected"]["kind"] == ref.SR  # the two together


def raise_winner_priorities(runtime: dict, model_spec: dict, amount: int) -> bool:
    """Raise the priorities of the winner's scoring entry and its W4 name-group by ``amount``.

    The scoring entry ``s`` is the first counted entry (S2) with the highest
    entry score (S3); its score is > 0 since the runtime qualified. Its group is
    its entry ``name`` (absent = ""). W4 must keep admitting the runtime:

    * every ``autoSelect: true`` entry of the group that sets a priority is
      raised by ``amount`` (raising only ``s`` would give the group two
      different priorities and the runtime would be denied);
    * an ``autoSelect: true`` entry of the group without priority is raised
      (from its effective 1) only when every entry of the group has the same
      effective priority; otherwise it stays absent, since ``1 + amount``
      would differ from the set priorities ``p + amount`` (W4 compares set
      priorities only);
    * ``s`` itself, when its ``autoSelect`` is absent, is outside every W4
      group and is raised freely.

    The winner's score never decreases: ``s`` is raised or unchanged, and the
    runtime score is at least ``s``'s. Returns whether ``s`` was raised.
    """
    entries = runtime["spec"]["supportedModelFormats"]
    stored = ref.apply_defaults(runtime)["spec"]["supportedModelFormats"]
    counted = [i for i, e in enumerate(stored) if ref.counts_in_score(e, model_spec)]
    best = max(ref.entry_score(stored[i]) for i in counted)
    s = next(i for i in counted if ref.entry_score(stored[i]) == best)
    group = entries[s].get("name", "")
    members = [e for e in entries if e.get("autoSelect") is True and e.get("name", "") == group]
    uniform = len({e.get("priority", 1) for e in members}) == 1
    scoring_entry_raised = False
    for e in members:
        if "priority" in e or uniform:
            scoring_entry_raised |= e is entries[s]
            e["priority"] = e.get("priority", 1) + amount
    if entries[s].get("autoSelect") is not True:
        entries[s]["priority"] = entries[s].get("priority", 1) + amount
        scoring_entry_raised = True
    return scoring_entry_raised


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(strategies.clusters(), st.integers(1, 5))
def test_raising_the_winners_priority_keeps_it_first_S3_O2_W4(cluster, amount):
    """S3/O2 with W4: raising the winner's scoring entry (and its name-group) keeps it first."""
    documents, query = cluster
    # Three drawn clusters in four end in an error or select nothing: the reference
    # model (about 1% of an explain's CPU) rejects those before the engine runs, and
    # where the engine answers, its winner must be the model's.
    expected = reference(documents, query)
    assume("error" not in expected and expected["selected"] is not None)
    before = engine_report(documents, query)
    assert "error" not in before and before["selected"] == expected["selected"], before
    winner_key = selected_key(before["selected"])
    index = next(i for i, d in enumerate(documents) if strategies.document_key(d) == winner_key)
    model_spec = ref.Cluster(documents).resolve_model(
        query["namespace"], before["query"]["model"])["spec"]
    changed = copy.deepcopy(documents)
    raised = raise_winner_priorities(changed[index], model_spec, amount)
    assert ref.admission_denial(ref.apply_defaults(changed[index]),
                                ref.Cluster(changed).accelerator_classes) is None
    after = engine_report(changed, query)
    assert_holds("raising-winner-priority-keeps-it-first", {"before": before, "after": after}, changed)
    old_score, new_score = (report["rows"][0]["score"] for report in (before, after))
    assert new_score > old_score if raised else new_score >= old_score
