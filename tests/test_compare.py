"""`ome-asp compare` (issue 15): what changed between two snapshots or two
profiles, and the smallest sets of edits that already give the later
selection, each verified by selecting again (spec O1-O5, S3, Q2; docs/profiles.md)."""

from __future__ import annotations

import copy
import itertools
import json
import re
import shlex
import subprocess
import sys

import pytest
import yaml
from conftest import FIXTURES, ROOT, run_cli
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from manifests import entry, model, runtime

from ome_asp.analysis import compare as analysis
from ome_asp.input import changes
from ome_asp.input.loader import load
from ome_asp.solver import ask
from ome_asp.solver.facts import Query, RuntimeRef
from ome_asp.solver.programs import Variant

CASES = FIXTURES / "cases" / "profiles"


def write(path, documents) -> str:
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return str(path)


def two_runtimes() -> list[dict]:
    """a (priority 2, score 4) wins over b (priority 1, score 2), O2."""
    return [model("m"), runtime("a", supportedModelFormats=[entry(priority=2)]),
            runtime("b", supportedModelFormats=[entry(priority=1)])]


def pair(tmp_path, before, after) -> list[str]:
    return ["--before", write(tmp_path / "before.yaml", before), "--after", write(tmp_path / "after.yaml", after)]


def causes(tmp_path, before, after, *target) -> tuple[int, dict]:
    result = run_cli("compare", *pair(tmp_path, before, after), *(target or ("--model", "m")), "-o", "json")
    return result.code, json.loads(result.stdout)


def selected(path: str, query: Query) -> RuntimeRef | None:
    answer = ask.ask(load([path]), [query], Variant.EXPLAIN).answer.queries[1]
    return answer.ranking[0] if answer.ranking else None


def twelve_changes():
    """b's priority 1 -> 3 moves m from a to b (score 6 > 4, O2); eleven more
    changes selection reads do not matter to m, and a label it does not read."""
    before = two_runtimes() + [model("other", modelFormat={"name": "onnx"}),
                               runtime("d", supportedModelFormats=[entry(modelFormat={"name": "onnx", "version": "1"}, priority=1)])]
    after = copy.deepcopy(before)
    after[2]["spec"]["supportedModelFormats"][0]["priority"] = 3
    d = after[4]["spec"]
    e = d["supportedModelFormats"][0]
    e.update(priority=2, modelArchitecture="MistralForCausalLM", quantization="fp8")
    e["modelFormat"]["weight"] = 5
    e["modelFramework"]["version"] = "4.46.0"
    d.update(modelSizeRange={"min": "1B", "max": "9B"}, disabled=True)
    after[3]["spec"].update(modelArchitecture="Qwen2ForCausalLM", quantization="int4", modelParameterSize="7B")
    after[1]["metadata"]["labels"] = {"team": "x"}
    after.append(runtime("e", supportedModelFormats=[entry(modelFormat={"name": "onnx"})]))
    return before, after


def test_twelve_changes_one_priority_edit_is_the_cause_and_verifies(tmp_path):
    """Issue 15: of 12 changed fields, the one priority edit alone explains the move."""
    before, after = twelve_changes()
    code, report = causes(tmp_path, before, after, "--all-models")
    assert code == 1
    assert len(report["changes"]) == 12
    assert report["ignoredChanges"] == [{"object": {"kind": "ClusterServingRuntime", "namespace": None, "name": "a"},
                                         "path": "metadata.labels", "from": None, "to": {"team": "x"}}]
    (item,) = report["items"]
    assert item["before"]["selected"]["name"] == "a" and item["after"]["selected"]["name"] == "b"
    assert item["decidedBy"] == {"criterion": "O2", "message": "O2 (higher score): b has score 6, a score 4"}
    cause = {"object": {"kind": "ClusterServingRuntime", "namespace": None, "name": "b"},
             "path": "spec.supportedModelFormats[0].priority", "from": 1, "to": 3}
    assert item["causes"] == [[cause]]
    assert report["unchanged"] == 1
    # the verification: before plus that edit alone selects b
    edited = copy.deepcopy(before)
    edited[2]["spec"]["supportedModelFormats"][0]["priority"] = 3
    assert selected(write(tmp_path / "edited.yaml", edited), Query("default", model="m")).name == "b"


def test_the_table_names_the_cause_and_the_rows_that_moved(tmp_path):
    before, after = twelve_changes()
    result = run_cli("compare", *pair(tmp_path, before, after), "--all-models")
    assert result.code == 1
    assert "Selected: ClusterServingRuntime a (before) → ClusterServingRuntime b (after)\n" in result.stdout
    assert "Decided by O2 (higher score): b has score 6, a score 4\n" in result.stdout
    assert "  ClusterServingRuntime a: Yes, rank 1 → Yes, rank 2\n" in result.stdout
    assert ("  Set 1 of 1 (1 edit):\n    1. ClusterServingRuntime b: spec.supportedModelFormats[0].priority: 1 → 3\n"
            in result.stdout)
    assert "1 of 2 models keep their runtime.\n" in result.stdout


def test_two_edits_jointly_needed_are_one_set_of_two(tmp_path):
    """b needs weight 2 and priority 2: (2 + 1) x 2 = 6 > 4; priority alone
    ties at 4 and a wins on name (O4); weight alone scores 3."""
    before = two_runtimes()
    after = copy.deepcopy(before)
    after[2]["spec"]["supportedModelFormats"][0]["priority"] = 2
    after[2]["spec"]["supportedModelFormats"][0]["modelFormat"]["weight"] = 2
    code, report = causes(tmp_path, before, after)
    assert code == 1
    (item,) = report["items"]
    assert [[c["path"] for c in cause] for cause in item["causes"]] == [[
        "spec.supportedModelFormats[0].modelFormat.weight", "spec.supportedModelFormats[0].priority"]]
    for edited_field in ("priority", "modelFormat"):  # neither alone suffices
        alone = copy.deepcopy(before)
        alone[2]["spec"]["supportedModelFormats"][0][edited_field] = after[2]["spec"]["supportedModelFormats"][0][edited_field]
        assert selected(write(tmp_path / "alone.yaml", alone), Query("default", model="m")).name == "a"


def test_either_of_two_edits_suffices_two_sets(tmp_path):
    """Disabling a (Q2) or raising b's priority to 3 (O2) each make b win."""
    before = two_runtimes()
    after = copy.deepcopy(before)
    after[2]["spec"]["supportedModelFormats"][0]["priority"] = 3
    after[1]["spec"]["disabled"] = True
    code, report = causes(tmp_path, before, after)
    (item,) = report["items"]
    assert [[(c["object"]["name"], c["path"], c["to"]) for c in cause] for cause in item["causes"]] == [
        [("a", "spec.disabled", True)], [("b", "spec.supportedModelFormats[0].priority", 3)]]
    assert item["decidedBy"]["criterion"] == "Q2"


def test_created_runtime_and_no_runtime_any_more(tmp_path):
    """An object created is one edit; a snapshot where nothing qualifies is a goal too."""
    before = two_runtimes()
    after = before + [runtime("c", "default", supportedModelFormats=[entry()])]  # a ServingRuntime wins (O1)
    code, report = causes(tmp_path, before, after)
    (item,) = report["items"]
    assert item["decidedBy"]["criterion"] == "O1"
    assert item["causes"] == [[{"object": {"kind": "ServingRuntime", "namespace": "default", "name": "c"},
                                "path": "", "from": None, "to": after[-1]}]]  # as written
    gone = [d for d in copy.deepcopy(before)]
    for doc in gone[1:]:
        doc["spec"]["disabled"] = True
    code, report = causes(tmp_path, before, gone)
    (item,) = report["items"]
    assert item["after"]["selected"] is None
    assert [[c["object"]["name"] for c in cause] for cause in item["causes"]] == [["a", "b"]]


def test_an_entry_with_seven_changed_fields_is_one_edit(tmp_path):
    """D-52: past 6 changes, an entry is one edit (64 fact variants at most),
    shown as written; here it is the cause."""
    before = two_runtimes()
    after = copy.deepcopy(before)
    e = after[2]["spec"]["supportedModelFormats"][0]
    e.update(name="b-llama", priority=3)
    e["modelFormat"].update(operator="GreaterThanOrEqual", weight=2, version="2.0.0")
    e["modelFramework"].update(operator="GreaterThanOrEqual", weight=2)
    code, report = causes(tmp_path, before, after)
    assert len(report["changes"]) == 7
    (item,) = report["items"]
    assert item["causes"] == [[{"object": {"kind": "ClusterServingRuntime", "namespace": None, "name": "b"},
                                "path": "spec.supportedModelFormats[0]",
                                "from": before[2]["spec"]["supportedModelFormats"][0], "to": e}]]


def test_nothing_changed_exits_0_and_all_lists_the_queries(tmp_path):
    before = two_runtimes()
    result = run_cli("compare", *pair(tmp_path, before, before), "--all")
    assert result.code == 0
    assert result.stdout.endswith("1 of 1 queries keep their runtime.\n  compare --model m -n default: ClusterServingRuntime a\n")


def test_a_shared_cause_that_does_not_hold_for_a_later_query_is_refused(tmp_path, monkeypatch):
    """Issue 39, survivor 3 (D-105): a set the search found is verified for
    every query it is given to, not only the first. m1 (safetensors) moves
    to y by y's first entry's priority, m2 (onnx) by its second's; planted
    through the search's input, the two models are taken as alike (one
    search, m1's), so m2 gets m1's cause, which selected again leaves m2 on
    x: refused loudly (an internal error naming the set and m2, exit 3),
    never printed as m2's cause. Fails with the verifier checking only the
    first query of each claim."""
    onnx = {"name": "onnx", "version": "1.0.0"}
    # the entries of two name groups: their priorities may differ (W4)
    entries = lambda first, second: [entry(name="st", priority=first), entry(name="ox", modelFormat=onnx, priority=second)]  # noqa: E731
    before = [model("m1"), model("m2", modelFormat=onnx), runtime("x", supportedModelFormats=entries(2, 2)),
              runtime("y", supportedModelFormats=entries(1, 1))]
    after = copy.deepcopy(before)
    after[3]["spec"]["supportedModelFormats"] = entries(3, 3)
    monkeypatch.setattr(analysis, "_model_alike", lambda before, after, item, touched: "planted")
    result = run_cli("compare", *pair(tmp_path, before, after), "--all-models")
    assert result.code == 3 and result.stdout == "", result.stdout
    assert result.stderr.startswith(
        "internal error: compare: the edit set ['ClusterServingRuntime y: spec.supportedModelFormats[0].priority: 1 → 3'] "
        "gives ClusterServingRuntime x for Query(namespace='default', model='m2', isvc=None), not ClusterServingRuntime y "
        "when applied"), result.stderr


def test_usage_errors_exit_2(tmp_path):
    path = write(tmp_path / "m.yaml", two_runtimes())
    assert run_cli("compare", "--before", path, "--model", "m").code == 2
    assert run_cli("compare", "--before", path, "--after", path).code == 2
    assert run_cli("compare", "-f", path, "--profiles", "v1.3", "--model", "m").code == 2
    assert run_cli("compare", "-f", path, "--profiles", "v1.3,v9", "--model", "m").code == 2
    bad = run_cli("compare", "--before", path, "--after", str(tmp_path / "missing.yaml"), "--model", "m")
    assert bad.code == 2 and bad.stderr.startswith("error: ")


# --- profiles mode: one fixture per docs/profiles.md section -----------------


def profiles_report(case: str, namespace: str, *flags: str) -> tuple[int, dict]:
    result = run_cli("compare", "-f", str(CASES / case / "manifests.yaml"), *flags, "--all", "-n", namespace, "-o", "json")
    return result.code, json.loads(result.stdout)


def test_profiles_section_2_v1_2_2_does_not_read_spec_deployment_mode():
    """D3 (docs/profiles.md section 2): v1.2.2 drops spec.deploymentMode, so the MultiNode runtime qualifies."""
    code, report = profiles_report("v1.2.2/d3-spec-deploymentmode-dropped", "demo", "--profiles", "v1.3,v1.2.2")
    assert code == 1
    (item,) = report["items"]
    assert item["query"]["isvc"] == "chat" and item["before"]["selected"] is None and item["after"]["selected"]["name"] == "rt"
    assert item["causes"] == [[{"setting": "mode_filter", "from": "full", "to": "annotations", "rules": "Q4, D1, D3",
                                "section": "Profile v1.2.2 (profiles.md section 2)"}]]


def test_profiles_section_3_code_v0_1_5_scores_one_sided_versions():
    """S2 (docs/profiles.md section 3): lenient versions let the runtime score; --ome-versions maps the releases."""
    code, report = profiles_report("code-v0.1.5/s2-lenient-versions-q19-row-6", "demo", "--ome-versions", "1.3.0,0.1.5")
    assert code == 1
    (item,) = report["items"]
    assert item["after"]["selected"]["name"] == "rt"
    assert [[s["setting"] for s in cause] for cause in item["causes"]] == [["lenient_score_versions"]]
    assert item["causes"][0][0]["section"] == "Profile code-v0.1.5 (profiles.md section 3): the quirks"


def test_profiles_section_0_an_outcome_differs():
    """Z3 (docs/profiles.md section 0 and 3): a one-bounded range panics under code-v0.1.5."""
    code, report = profiles_report("code-v0.1.5/z3-one-bounded-range-panics", "demo", "--profiles", "v1.3,code-v0.1.5")
    (item,) = report["items"]
    assert item["after"]["outcome"].startswith("panic ")
    assert [[s["setting"] for s in cause] for cause in item["causes"]] == [["one_bounded_range"]]


# --- the search against brute force --------------------------------------------


@st.composite
def snapshot_pairs(draw) -> tuple[list[dict], list[dict]]:
    """Model m and 2-4 runtimes that support it, then each runtime changed
    (priority, weight, autoSelect, size range, disabled) or deleted with
    probability 1/2: the selection often moves, through one or several changes."""
    size = draw(st.sampled_from((None, "1B", "7B")))
    before = [model("m", **({"modelParameterSize": size} if size else {}))]
    for name in ("a", "b", "c", "d")[:draw(st.integers(2, 4))]:
        fmt = {"name": "safetensors", "version": "1.0.0", "weight": draw(st.integers(1, 3))}
        spec = {"supportedModelFormats": [entry(modelFormat=fmt, priority=draw(st.integers(1, 3)))]}
        if draw(st.booleans()):
            spec["modelSizeRange"] = draw(st.sampled_from(({"min": "1B", "max": "8B"}, {"min": "2B", "max": "70B"})))
        before.append(runtime(name, "default" if draw(st.integers(0, 3)) == 0 else None, **spec))
    after = copy.deepcopy(before)
    for doc in before[1:]:
        what = draw(st.sampled_from(("keep", "keep", "keep", "priority", "weight", "auto", "disable", "range", "delete")))
        edited = next(d for d in after if d["metadata"] == doc["metadata"])
        e = edited["spec"]["supportedModelFormats"][0]
        if what == "priority":
            e["priority"] = e["priority"] % 3 + 1
        elif what == "weight":
            e["modelFormat"]["weight"] = e["modelFormat"]["weight"] % 3 + 1
        elif what == "auto":
            e["autoSelect"] = False
        elif what == "disable":
            edited["spec"]["disabled"] = True
        elif what == "range":
            edited["spec"]["modelSizeRange"] = {"min": "8B", "max": "13B"}
        elif what == "delete":
            after.remove(edited)
    return before, after


def _goal(cluster, query: Query) -> tuple:
    from ome_asp.analysis.compare import state

    return state(ask.ask(cluster, [query], Variant.RANK).answer.queries[1])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_causes_are_exactly_the_smallest_sets_brute_force(tmp_path_factory, data):
    """Issue 15: every set compare reports gives the later selection (it is
    verified inside), none smaller does, and every set of that size that does
    is reported (up to 5): checked by selecting again on every subset of all
    the changes selection reads, not only those the search considers."""
    from ome_asp.analysis.compare import MAX_SETS, compare_snapshots

    documents, edited = data.draw(snapshot_pairs())
    directory = tmp_path_factory.mktemp("c")
    before, after = load([write(directory / "before.yaml", documents)]), load([write(directory / "after.yaml", edited)])
    q = Query("default", model="m")
    result = compare_snapshots(before, after, [q], "models")
    for item in result.items:
        event(f"causes: {item.note or len(item.causes[0])}")
        if item.note is not None:
            continue
        goal = _goal(after, q)
        size = len(item.causes[0])
        for k in range(size + 1):
            hits = [list(s) for s in itertools.combinations(result.changes, k) if _goal(changes.apply(before, list(s)), q) == goal]
            if k < size:
                assert hits == []
            elif len(hits) <= MAX_SETS:
                assert sorted(map(str, hits)) == sorted(map(str, item.causes))
            else:
                assert all(cause in hits for cause in item.causes)


# --- causes as manifest paths, in the user's names and values (issue 25) --------


def test_a_list_cause_is_per_entry_in_manifest_paths_not_internal_names(tmp_path):
    """Issue 25: two `autoSelect: true` entries becoming one `autoSelect: false`
    (Q7) printed as {"model_format": {…, "operator": "Equal", "weight": 1},
    "auto_select": true, …}; it is the manifest's paths, entry by entry."""
    onnx = entry(modelFormat={"name": "onnx", "version": "1"}, modelFramework={"name": "onnxruntime"})
    before = [model("m"), runtime("x", supportedModelFormats=[entry(), onnx])]
    after = [model("m"), runtime("x", supportedModelFormats=[entry(autoSelect=False)])]
    result = run_cli("compare", *pair(tmp_path, before, after), "--model", "m")
    assert result.code == 1
    line = ("    1. ClusterServingRuntime x: spec.supportedModelFormats[0].autoSelect: true → false; "
            "remove spec.supportedModelFormats[1] (was " + json.dumps(onnx, separators=(", ", ": ")) + ")\n")
    assert line in result.stdout
    for internal in ("model_format", "auto_select", '"operator"', '"weight"'):
        assert internal not in result.stdout
    code, report = causes(tmp_path, before, after)
    (cause,) = report["items"][0]["causes"]
    assert cause[0]["entries"] == [
        {"path": "spec.supportedModelFormats[0].autoSelect", "from": True, "to": False},
        {"path": "spec.supportedModelFormats[1]", "from": onnx, "to": None}]
    assert (cause[0]["path"], cause[0]["from"], cause[0]["to"]) == (
        "spec.supportedModelFormats", before[1]["spec"]["supportedModelFormats"], after[1]["spec"]["supportedModelFormats"])


def test_unmatched_entries_are_one_change_of_the_list_as_written(tmp_path):
    """Two entries with the same format and framework cannot be told apart: the whole list, as written."""
    before = [model("m"), runtime("x", supportedModelFormats=[entry(), entry(priority=2)])]
    after = [model("m"), runtime("x", supportedModelFormats=[entry(autoSelect=False)])]
    code, report = causes(tmp_path, before, after)
    (cause,) = report["items"][0]["causes"]
    assert "entries" not in cause[0] and cause[0]["to"] == after[1]["spec"]["supportedModelFormats"]


def test_a_default_is_shown_as_a_default(tmp_path):
    """I3: an absent weight is 1; shown `1 (default)`, marked in JSON, never as if written."""
    before = two_runtimes()
    after = copy.deepcopy(before)
    after[2]["spec"]["supportedModelFormats"][0]["modelFormat"]["weight"] = 3  # b: 3 × 1 + 1 = 4 × priority 1, O4 no longer
    after[2]["spec"]["supportedModelFormats"][0]["priority"] = 2
    result = run_cli("compare", *pair(tmp_path, before, after), "--model", "m")
    assert "ClusterServingRuntime b: spec.supportedModelFormats[0].modelFormat.weight: 1 (default) → 3\n" in result.stdout
    code, report = causes(tmp_path, before, after)
    weight = next(c for c in report["items"][0]["causes"][0] if c["path"].endswith("weight"))
    assert (weight["from"], weight["to"], weight["defaults"]) == (1, 3, ["from"])


# --- readable at catalog scale (issue 25) -------------------------------------------


def catalog(models: int = 8) -> list[dict]:
    """`models` models, each served by its own runtime `old-i` (priority 1)."""
    documents = []
    for i in range(models):
        fmt = {"name": f"f{i}", "version": "1"}
        documents += [model(f"m{i}", modelFormat=fmt),
                      runtime(f"old-{i}", supportedModelFormats=[entry(modelFormat=fmt, priority=1)],
                              containers=[{"name": "c", "image": "v1"}])]
    return documents


def created_for_all(documents: list[dict]) -> list[dict]:
    """A runtime `new` created that serves every model's format at priority 2 (O2): every model moves."""
    formats = [entry(modelFormat=d["spec"]["modelFormat"], priority=2) for d in documents if d["kind"] == "ClusterBaseModel"]
    return copy.deepcopy(documents) + [runtime("new", supportedModelFormats=formats)]


def test_models_moved_by_one_cause_are_one_group(tmp_path):
    """Issue 25: 8 models that moved for one reason printed as 8 blocks, the cause 8 times."""
    before = catalog()
    result = run_cli("compare", *pair(tmp_path, before, created_for_all(before)), "--all-models")
    assert result.code == 1
    assert "\n# ClusterServingRuntime new: created ⇒ 8 models moved\n" in result.stdout
    assert result.stdout.count("Cause:") == 1 and "# compare --model" not in result.stdout
    assert ("  --model m3 -n default: ClusterServingRuntime old-3 → ClusterServingRuntime new "
            "(O2 (higher score): new has score 4, old-3 score 2)\n") in result.stdout
    document = json.loads(run_cli("compare", *pair(tmp_path, before, created_for_all(before)), "--all-models",
                                  "-o", "json").stdout)
    assert document["summary"] == {"moved": 8, "lost": 0, "gained": 0, "changed": 0, "unchanged": 0}
    assert document["groups"] == [{"title": "ClusterServingRuntime new: created ⇒ 8 models moved", "items": list(range(8))}]
    assert {item["change"] for item in document["items"]} == {"moved"}


def test_ignored_changes_are_counted_by_field_unless_show_ignored(tmp_path):
    """Issue 25: the ignored section was one line per leaf (254 lines of container commands)."""
    before = catalog(models=30)
    after = copy.deepcopy(before)
    for d in after:
        if d["kind"] == "ClusterServingRuntime":
            d["spec"]["containers"][0]["image"] = "v2"
    result = run_cli("compare", *pair(tmp_path, before, after), "--all-models")
    assert (result.code, result.stdout.split("30 of 30 models keep their runtime.\n")[1]) == (0, (
        "Changes not read by selection (ignored; --show-ignored lists them): 30\n"
        "  ClusterServingRuntime spec.containers: 30 changes in 30 objects\n"))
    listed = run_cli("compare", *pair(tmp_path, before, after), "--all-models", "--show-ignored")
    assert listed.stdout.count("spec.containers[0].image: v1 → v2\n") == 30
    document = json.loads(run_cli("compare", *pair(tmp_path, before, after), "--all-models", "-o", "json").stdout)
    assert len(document["ignoredChanges"]) == 30
    assert document["ignoredCounts"] == [{"kind": "ClusterServingRuntime", "field": "spec.containers", "changes": 30, "objects": 30}]
    assert run_cli("compare", *pair(tmp_path, before, after), "--all-models", "--show-ignored", "-o", "json").code == 2


def test_markdown_for_a_pull_request_summary_first_details_folded(tmp_path):
    before = catalog()
    after = created_for_all(before)
    after[1]["spec"]["containers"][0]["image"] = "v2"
    result = run_cli("compare", *pair(tmp_path, before, after), "--all-models", "-o", "markdown")
    assert result.code == 1
    head, details = result.stdout.split("<details><summary>Details: each query and its causes</summary>")
    assert head == ("### ome-asp compare: before → after\n\n| models | count |\n|---|---:|\n| moved | 8 |\n"
                    "| lost their runtime | 0 |\n| gained a runtime | 0 |\n| changed otherwise | 0 |\n"
                    "| keep their answer | 0 |\n| **total** | **8** |\n\n| cause | what it did |\n|---|---|\n"
                    "| ClusterServingRuntime new: created | 8 models moved |\n\n")
    assert "  --model m0 -n default: ClusterServingRuntime old-0 → ClusterServingRuntime new" in details
    assert details.endswith("<details><summary>1 change selection does not read</summary>\n\n"
                            "| object kind | field | changes | objects |\n|---|---|---:|---:|\n"
                            "| ClusterServingRuntime | `spec.containers` | 1 | 1 |\n\n</details>\n")


def test_fail_on_a_kind_of_change(tmp_path):
    """--fail-on for CI: exit 1 only for the kinds named (moved, lost; any: every change), else 0."""
    before = catalog(models=2)
    moved = pair(tmp_path, before, created_for_all(before))
    codes = {kind: run_cli("compare", *moved, "--all-models", "--fail-on", kind).code for kind in ("moved", "lost", "any")}
    assert codes == {"moved": 1, "lost": 0, "any": 1}
    lost = copy.deepcopy(before)
    lost[1]["spec"]["disabled"] = True  # m0 has no runtime any more
    (tmp_path / "lost").mkdir()
    lost_pair = pair(tmp_path / "lost", before, lost)
    codes = {kind: run_cli("compare", *lost_pair, "--all-models", "--fail-on", kind).code for kind in ("moved", "lost", "any")}
    assert codes == {"moved": 0, "lost": 1, "any": 1}


def test_docs_compare_md_shows_the_real_output(monkeypatch):
    """docs/compare.md's worked example (fixtures/compare/catalog-pr) is what compare prints today."""
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    blocks = re.findall(r"(```|~~~~)\n\$ ome-asp (compare [^\n]*)\n(.*?)\1", text, flags=re.S)
    assert len(blocks) == 2
    for _, command, shown in blocks:
        result = run_cli(*shlex.split(command))
        assert result.code == 1 and result.stdout == shown, command


def test_models_alike_but_for_their_names_share_one_search(tmp_path, monkeypatch):
    """Issue 25 (speed): a catalog's models of one architecture and size band are one search for the
    causes, not one each; each set is still verified for every model; a model a change touches is searched alone."""

    searches = []
    search = analysis.minimal_causes
    monkeypatch.setattr(analysis, "minimal_causes", lambda *a: searches.append(a[2]) or search(*a))
    before = [model(f"m{i}") for i in range(6)] + two_runtimes()[1:]
    after = copy.deepcopy(before)
    after[-1]["spec"]["supportedModelFormats"][0]["priority"] = 3  # b wins for every model (O2)
    after[0]["spec"]["modelParameterSize"] = "8B"  # m0 changes too: its own search
    code, report = causes(tmp_path, before, after, "--all-models")
    assert [q.model for q in searches] == ["m0", "m1"]
    assert report["summary"]["moved"] == 6
    assert {json.dumps(item["causes"]) for item in report["items"][1:]} == {json.dumps(
        [[{"object": {"kind": "ClusterServingRuntime", "namespace": None, "name": "b"},
           "path": "spec.supportedModelFormats[0].priority", "from": 1, "to": 3}]])}


@pytest.mark.slow
def test_the_catalog_benchmark_runs_on_tiny_sizes():
    """benchmarks/compare.py (issue 25's OME-sized catalog and its upgrade) on 20 × 20, print only."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "compare.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "| `compare --all-models` |" in result.stdout and "| `compare --all-models -o json` |" in result.stdout
    assert re.search(r"compare's summary line\): 20 models: \d+ moved", result.stdout)


def test_markdown_details_fence_outlasts_backticks_in_values(tmp_path):
    """A manifest value holding ``` does not end the folded details' code block."""
    before = two_runtimes()
    before[2]["spec"]["supportedModelFormats"][0].update(modelArchitecture="Llama```X", priority=3)
    after = copy.deepcopy(before)
    after[2]["spec"]["supportedModelFormats"][0]["modelArchitecture"] = "LlamaForCausalLM"
    result = run_cli("compare", *pair(tmp_path, before, after), "--model", "m", "-o", "markdown")
    details = result.stdout.split("<details><summary>Details: each query and its causes</summary>\n\n")[1]
    assert details.startswith("````\n") and "modelArchitecture: Llama```X → LlamaForCausalLM\n````\n" in details


def test_yaml_causes_are_manifest_paths_too(tmp_path):
    onnx = entry(modelFormat={"name": "onnx", "version": "1"}, modelFramework={"name": "onnxruntime"})
    before = [model("m"), runtime("x", supportedModelFormats=[entry(), onnx])]
    after = [model("m"), runtime("x", supportedModelFormats=[entry(autoSelect=False)])]
    result = run_cli("compare", *pair(tmp_path, before, after), "--model", "m", "-o", "yaml")
    (cause,) = yaml.safe_load(result.stdout)["items"][0]["causes"]
    assert cause[0]["entries"][0] == {"path": "spec.supportedModelFormats[0].autoSelect", "from": True, "to": False}
    assert "auto_select" not in result.stdout and "model_format" not in result.stdout
