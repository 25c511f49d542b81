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


def written_line(place: dict) -> str:
    """The line a cause's place names, stripped: what the reviewer opens."""
    with open(place["file"], encoding="utf-8") as file:
        return file.read().splitlines()[place["line"] - 1].strip()


def unplaced(edit: dict) -> dict:
    """An edit without its place (file, line, side) and its entries' places."""
    out = {k: v for k, v in edit.items() if k not in ("file", "line", "side")}
    if "entries" in out:
        out["entries"] = [unplaced(e) for e in out["entries"]]
    return out


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
             "path": "spec.supportedModelFormats[0].priority", "from": 1, "to": 3,
             "file": str(tmp_path / "after.yaml"), "line": item["causes"][0][0]["line"], "side": "after"}
    assert item["causes"] == [[cause]] and written_line(cause) == "priority: 3"  # issue 37: at its file and line
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
    line = re.search(r"    1\. (.*):(\d+): ClusterServingRuntime b: spec.supportedModelFormats\[0\].priority: 1 → 3\n",
                     result.stdout.split("  Set 1 of 1 (1 edit):\n")[1])
    assert written_line({"file": line[1], "line": int(line[2])}) == "priority: 3"
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
    ((created,),) = item["causes"]
    assert unplaced(created) == {"object": {"kind": "ServingRuntime", "namespace": "default", "name": "c"},
                                 "path": "", "from": None, "to": after[-1]}  # as written
    assert (created["side"], written_line(created)) == ("after", "- apiVersion: ome.io/v1beta1"[2:])  # its first line
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
    ((edit,),) = item["causes"]
    entries = edit.pop("entries")
    assert unplaced(edit) == {"object": {"kind": "ClusterServingRuntime", "namespace": None, "name": "b"},
                              "path": "spec.supportedModelFormats[0]",
                              "from": before[2]["spec"]["supportedModelFormats"][0], "to": e}
    # issue 37: field by field, each at its line, never the entry as one value
    assert [(x["path"].removeprefix("spec.supportedModelFormats[0]."), x["to"], written_line(x)) for x in entries] == [
        ("modelFormat.version", "2.0.0", "version: 2.0.0"), ("modelFormat.operator", "GreaterThanOrEqual",
         "operator: GreaterThanOrEqual"), ("modelFormat.weight", 2, "weight: 2"), ("modelFramework.operator",
         "GreaterThanOrEqual", "operator: GreaterThanOrEqual"), ("modelFramework.weight", 2, "weight: 2"),
        ("priority", 3, "priority: 3"), ("name", "b-llama", "name: b-llama")]


def test_nothing_changed_exits_0_and_all_lists_the_queries(tmp_path):
    before = two_runtimes()
    result = run_cli("compare", *pair(tmp_path, before, before), "--all")
    assert result.code == 0
    assert result.stdout.endswith("1 of 1 queries keep their runtime.\n  compare --model m -n default: ClusterServingRuntime a\n"
                                  "Verdict: pass (--fail-on any, the default): no query changed.\n")


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
    "auto_select": true, …}; it is the manifest's paths, entry by entry, each
    at its file and line (issue 37: the removed entry in the earlier file,
    its fields as paths, not a JSON document)."""
    onnx = entry(modelFormat={"name": "onnx", "version": "1"}, modelFramework={"name": "onnxruntime"})
    before = [model("m"), runtime("x", supportedModelFormats=[entry(), onnx])]
    after = [model("m"), runtime("x", supportedModelFormats=[entry(autoSelect=False)])]
    result = run_cli("compare", *pair(tmp_path, before, after), "--model", "m")
    assert result.code == 1
    lines = result.stdout.split("  Set 1 of 1 (1 edit):\n")[1].splitlines()[:3]
    assert lines[0] == "    1. ClusterServingRuntime x:"
    assert re.fullmatch(r"       .*/after\.yaml:\d+: spec\.supportedModelFormats\[0\]\.autoSelect: true → false", lines[1])
    assert re.fullmatch(r"       .*/before\.yaml:\d+: remove spec\.supportedModelFormats\[1\] \(was modelFormat\.name: onnx, "
                        r"modelFormat\.version: 1, modelFramework\.name: onnxruntime, modelArchitecture: LlamaForCausalLM, "
                        r"autoSelect: true\)", lines[2])
    for internal in ("model_format", "auto_select", '"operator"', '"weight"', "{"):
        assert internal not in result.stdout
    code, report = causes(tmp_path, before, after)
    (cause,) = report["items"][0]["causes"]
    assert [unplaced(e) for e in cause[0]["entries"]] == [
        {"path": "spec.supportedModelFormats[0].autoSelect", "from": True, "to": False},
        {"path": "spec.supportedModelFormats[1]", "from": onnx, "to": None}]
    assert [(e["side"], written_line(e)) for e in cause[0]["entries"]] == [("after", "autoSelect: false"), ("before", "- modelFormat:")]
    assert (cause[0]["path"], cause[0]["from"], cause[0]["to"]) == (
        "spec.supportedModelFormats", before[1]["spec"]["supportedModelFormats"], after[1]["spec"]["supportedModelFormats"])


def test_unmatched_entries_are_compared_by_position(tmp_path):
    """Two entries with the same format and framework cannot be told apart by
    name: entry by entry by position (issue 37: was the whole list as one
    ~800-character JSON value)."""
    before = [model("m"), runtime("x", supportedModelFormats=[entry(), entry(priority=2)])]
    after = [model("m"), runtime("x", supportedModelFormats=[entry(autoSelect=False)])]
    code, report = causes(tmp_path, before, after)
    (cause,) = report["items"][0]["causes"]
    assert cause[0]["to"] == after[1]["spec"]["supportedModelFormats"]
    assert [unplaced(e) for e in cause[0]["entries"]] == [
        {"path": "spec.supportedModelFormats[0].autoSelect", "from": True, "to": False},
        {"path": "spec.supportedModelFormats[1]", "from": before[1]["spec"]["supportedModelFormats"][1], "to": None}]
    text = run_cli("compare", *pair(tmp_path, before, after), "--model", "m").stdout
    assert "remove spec.supportedModelFormats[1] (was modelFormat.name: safetensors, " in text and "[{" not in text


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
        "  ClusterServingRuntime spec.containers: 30 changes in 30 objects\n"
        "Verdict: pass (--fail-on any, the default): no model changed.\n"))
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
    paths = pair(tmp_path, before, after)
    result = run_cli("compare", *paths, "--all-models", "-o", "markdown")
    assert result.code == 1
    head, details = result.stdout.split("<details><summary>Details: each query and its causes</summary>")
    where = f"` {paths[3]}:{result.stdout.split(paths[3] + ':')[1].split(' ')[0]} `"
    assert head == (f"### ome-asp compare: ` {paths[1]} ` → ` {paths[3]} ` · profile ` v1.3 ` · fail\n\n"
                    "Verdict: fail (--fail-on any, the default): 8 moved.\n\n"
                    "| models | count |\n|---|---:|\n| lost their runtime | 0 |\n| moved | 8 |\n"
                    "| changed otherwise | 0 |\n| gained a runtime | 0 |\n"
                    "| keep their answer | 0 |\n| **total** | **8** |\n\n| what it did | cause | where |\n|---|---|---|\n"
                    "| 8 models moved: ` m0 `, ` m1 `, ` m2 `, ` m3 `, ` m4 ` and 3 more | ` ClusterServingRuntime new: created ` "
                    f"| {where} |\n\n")
    assert "  --model m0 -n default: ClusterServingRuntime old-0 → ClusterServingRuntime new" in details
    assert details.endswith("<details><summary>1 change selection does not read</summary>\n\n"
                            "| object kind | field | changes | objects |\n|---|---|---:|---:|\n"
                            "| ClusterServingRuntime | ` spec.containers ` | 1 | 1 |\n\n</details>\n")


def test_fail_on_a_kind_of_change(tmp_path):
    """--fail-on for CI: exit 1 only for the kinds named (lost, moved, changed,
    gained; any: every change), else 0."""
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


def lost_and_moved(tmp_path) -> list[str]:
    """m0 loses its runtime (old-0 disabled), m1 moves (new serves it at priority 2)."""
    before = catalog(models=2)
    after = copy.deepcopy(before)
    after[1]["spec"]["disabled"] = True
    after.append(runtime("new", supportedModelFormats=[entry(modelFormat=before[2]["spec"]["modelFormat"], priority=2)]))
    return pair(tmp_path, before, after)


@pytest.mark.parametrize("flags", [("--fail-on", "moved,lost"), ("--fail-on", "lost", "--fail-on", "moved"),
                                   ("--fail-on", "moved", "--fail-on", "lost")])
def test_fail_on_is_a_set_and_the_verdict_names_every_kind_that_failed(tmp_path, flags):
    """Issue 37 item 1: `--fail-on moved` exited 0 while a model lost its
    runtime, `--fail-on lost --fail-on moved` kept the last value, `--fail-on
    moved,lost` was refused. The kinds accumulate; the verdict, a line of
    every output, names each kind that failed the gate."""
    paths = lost_and_moved(tmp_path)
    text = run_cli("compare", *paths, "--all-models", *flags)
    assert text.code == 1
    line = "Verdict: fail (--fail-on lost,moved): 1 lost their runtime, 1 moved."
    assert text.stdout.splitlines()[-1] == line
    markdown = run_cli("compare", *paths, "--all-models", "-o", "markdown", *flags).stdout.splitlines()
    assert markdown[0].endswith(" · fail") and markdown[2] == line
    for output, read in (("json", json.loads), ("yaml", yaml.safe_load)):
        document = read(run_cli("compare", *paths, "--all-models", "-o", output, *flags).stdout)
        assert document["verdict"] == {"result": "fail", "failOn": ["lost", "moved"], "failing": {"lost": 1, "moved": 1},
                                       "message": line}


def test_the_verdict_says_what_passed_and_what_was_not_gated(tmp_path):
    paths = lost_and_moved(tmp_path)
    result = run_cli("compare", *paths, "--all-models", "--fail-on", "gained,changed")
    assert (result.code, result.stdout.splitlines()[-1]) == (0, "Verdict: pass (--fail-on changed,gained): no model "
                                                                 "changed otherwise or gained a runtime; not failing the "
                                                                 "gate: 1 lost their runtime, 1 moved.")


@pytest.mark.parametrize("flags, message", [
    (("--fail-on", "moved,lots"), "error: argument --fail-on: unknown kind lots (choose from lost, moved, changed, "
                                  "gained, any; comma-separated or repeated)\n"),
    (("--fail-on", ""), "error: argument --fail-on: unknown kind \"\" (choose from lost, moved, changed, gained, any; "
                        "comma-separated or repeated)\n"),
    (("--max-bytes", "100", "-o", "markdown"), "error: argument --max-bytes: expected a number of bytes of at least "
                                               "2048, found 100\n"),
    (("--max-bytes", "4096"), "error: --max-bytes: a budget for -o markdown's comment; -o table is never cut\n"),
])
def test_gate_and_budget_usage_errors(tmp_path, flags, message):
    result = run_cli("compare", *lost_and_moved(tmp_path), "--all-models", *flags)
    assert (result.code, result.stderr) == (2, message)


def test_docs_compare_md_shows_the_real_output(monkeypatch):
    """docs/compare.md's worked example (fixtures/compare/catalog-pr) is what compare prints today."""
    monkeypatch.chdir(ROOT)
    text = (ROOT / "docs" / "compare.md").read_text(encoding="utf-8")
    blocks = re.findall(r"(```|~~~~)\n\$ ome-asp (compare [^\n]*)\n(.*?)\1", text, flags=re.S)
    assert len(blocks) == 2
    for _, command, shown in blocks:
        result = run_cli(*shlex.split(command))
        assert result.code == 1 and result.stdout == shown, command


def test_each_snapshot_is_ranked_and_explained_alone_without_the_world_rewrite(monkeypatch):
    """Issue 40 (D-361): which answers differ is read from each snapshot's
    ranking, and the changed queries explained, each snapshot asked alone:
    four plain groundings, none with the encoding rewritten for worlds (about
    0.2 s of CPU a variant, a process's first batch of worlds). Fails with the
    snapshots asked as two worlds of one grounding."""
    from ome_asp.input.loader import load_documents
    from ome_asp.solver import engine

    grounded, ground = [], engine.ground_program
    monkeypatch.setattr(engine, "ground_program", lambda facts, files, load=None: (
        grounded.append((Variant(tuple(files)).name, load is None)) or ground(facts, files, load)))
    before = [model(f"m{i}") for i in range(3)] + two_runtimes()[1:]
    after = copy.deepcopy(before)
    after[-1]["spec"]["supportedModelFormats"][0]["priority"] = 3  # b wins for every model (O2)
    items, unchanged = analysis.compared((load_documents(before), load_documents(after)),
                                         [Query("default", model=f"m{i}") for i in range(3)])
    assert [(item.query.model, item.before.ranking[0].name, item.after.ranking[0].name) for item in items] == [
        ("m0", "a", "b"), ("m1", "a", "b"), ("m2", "a", "b")] and not unchanged
    assert grounded == [("BATCH_RANK", True), ("BATCH_RANK", True), ("BATCH_EXPLAIN", True), ("BATCH_EXPLAIN", True)]


def test_runtimes_created_that_qualify_in_neither_snapshot_are_out_of_the_search(tmp_path, monkeypatch):
    """Issue 40 (D-362): a catalog upgrade creating many runtimes searched
    each model's causes among every created runtime (14 s of CPU for 181
    created at 204 models); one created that qualifies in neither snapshot
    cannot change the model's selection, so the search grounds exactly what
    it grounds without the 10 created here for another architecture, and
    finds the same cause. Under code-v0.1.5 (W5: a runtime's priorities can
    deny another's) they stay in. Fails with the created runtimes searched."""
    from ome_asp.solver import engine

    searched, ground = [], engine.ground_program

    def counting(facts, files, load=None):
        ctl = ground(facts, files, load)
        if Variant(tuple(files)) == Variant.COMPARE:
            searched.append(len(ctl.symbolic_atoms))
        return ctl

    monkeypatch.setattr(engine, "ground_program", counting)
    before = two_runtimes()
    after = before + [runtime("c", supportedModelFormats=[entry(priority=3)])]
    others = [runtime(f"x{i}", supportedModelFormats=[entry(modelArchitecture="MistralForCausalLM")]) for i in range(10)]
    reports = []
    for flags in ((), ("--profile", "code-v0.1.5")):
        for documents in (after, after + others):
            code, report = causes(tmp_path, before, documents, *flags, "--model", "m")
            reports.append([item["causes"] for item in report["items"]])
    alone, among, alone_w5, among_w5 = searched
    assert alone == among and among_w5 > alone_w5
    assert reports[0] == reports[1] and reports[2] == reports[3] and reports[0]


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
    assert {json.dumps([[unplaced(e) for e in cause] for cause in item["causes"]]) for item in report["items"][1:]} == {json.dumps(
        [[{"object": {"kind": "ClusterServingRuntime", "namespace": None, "name": "b"},
           "path": "spec.supportedModelFormats[0].priority", "from": 1, "to": 3}]])}


@pytest.mark.slow
def test_the_catalog_benchmark_runs_on_tiny_sizes():
    """benchmarks/compare.py (issue 25's OME-sized catalog and its upgrade) on 20 × 20, print only."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "compare.py"), "--quick"],
                            capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "| `compare --all-models` |" in result.stdout and "| `compare --all-models -o json` |" in result.stdout
    assert re.search(r"compare's summary line\): 20 models: (\d+ [a-z ]+, )*\d+ moved", result.stdout)


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
    assert unplaced(cause[0]["entries"][0]) == {"path": "spec.supportedModelFormats[0].autoSelect", "from": True, "to": False}
    assert written_line(cause[0]["entries"][0]) == "autoSelect: false"  # the entry's own field, at its line
    assert "auto_select" not in result.stdout and "model_format" not in result.stdout


# --- the pull request's comment (issues 37, 38, 39) -----------------------------------

HOSTILE = ("Llama\r\n### forged heading\n| x | y |\u2028[link](https://evil.example) ![img](https://evil.example/i.png) "
           "www.evil.example @admin *em* _em_ **strong** <b>html</b> `tick` ~~gone~~ \\| &amp;")
MARKERS = ("forged", "evil", "admin", "html", "tick", "gone", "em", "strong", "&")


def markdown_tokens(text: str):
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like").parse(text)


def test_markdown_values_are_only_ever_text(tmp_path):
    """Issue 38 item 4: a carriage return in a manifest value ended the table
    row (forged headings in the PR comment); links, images, @mentions and
    emphasis in values rendered. Read as GFM reads it, every value is the
    text of a code span or of the details' code block. Kills (issue 39
    survivor 6) the `|` escape removed from a cell: the row gains cells."""
    before = two_runtimes()
    before[2]["spec"]["supportedModelFormats"][0].update(priority=3)  # b wins
    after = copy.deepcopy(before)
    after[2]["spec"]["supportedModelFormats"][0]["modelArchitecture"] = HOSTILE  # b no longer matches: m moves to a
    result = run_cli("compare", *pair(tmp_path, before, after), "--model", "m", "-o", "markdown")
    assert result.code == 1, result.stderr
    tokens = markdown_tokens(result.stdout)
    assert [t.tag for t in tokens if t.type == "heading_open"] == ["h3"]
    rows = [t for t in tokens if t.type in ("tr_open", "th_open", "td_open", "tr_close")]
    widths = []
    for t in rows:
        if t.type == "tr_open":
            widths.append(0)
        elif t.type != "tr_close":
            widths[-1] += 1
    assert widths == [2] * 7 + [3, 3], widths  # the summary table, then the cause table: header and one row
    texts = [child for t in tokens if t.type == "inline" for child in t.children]
    assert not [c for c in texts if c.type in ("link_open", "image", "em_open", "s_open")]
    assert not [c.content for c in texts if c.type in ("text", "html_inline") and any(m in c.content for m in MARKERS)]
    assert not [t.content for t in tokens if t.type == "html_block" and any(m in t.content for m in MARKERS)]
    assert any(HOSTILE.replace("\r", "\\r").replace("\n", "\\n").replace("\u2028", "\\u2028") in c.content
               for c in texts if c.type == "code_inline")


def test_markdown_fits_max_bytes_never_cutting_a_table(tmp_path):
    """Issue 37: no guard for a comment host's size limit (GitHub: 65,536
    characters). The folded details go first, then the lists, a cause row
    last, each cut at a row boundary with a note."""
    before = catalog(models=30)
    after = created_for_all(before)
    for d in after:
        if d["kind"] == "ClusterServingRuntime" and d["metadata"]["name"] != "new":
            d["spec"]["containers"][0]["image"] = "v2"
    paths = pair(tmp_path, before, after)
    whole = run_cli("compare", *paths, "--all-models", "-o", "markdown").stdout
    assert len(whole.encode()) > 4096 and "left out" not in whole
    for budget in (2048, 3000, 4096):
        cut = run_cli("compare", *paths, "--all-models", "-o", "markdown", "--max-bytes", str(budget)).stdout
        assert len(cut.encode()) <= budget and "left out to fit --max-bytes" in cut
        tokens = markdown_tokens(cut)
        for table in (t for t in tokens if t.type == "table_open"):  # every row of every table has its header's cells
            start = tokens.index(table)
            end = next(n for n in range(start, len(tokens)) if tokens[n].type == "table_close")
            heads = sum(1 for t in tokens[start:end] if t.type == "th_open")
            cells = [t.type for t in tokens[start:end] if t.type in ("tr_open", "td_open")]
            assert all(cells[n + 1: n + 1 + heads] == ["td_open"] * heads for n, c in enumerate(cells)
                       if c == "tr_open" and n > 0)
        assert cut.count("<details>") == cut.count("</details>")
        assert cut.startswith(whole.split("| what it did")[0])  # the heading, verdict and summary always
    assert "| 8 models moved" not in whole  # (30 here)
    assert "| 30 models moved: " in run_cli("compare", *paths, "--all-models", "-o", "markdown", "--max-bytes",
                                           "2048").stdout


def tie() -> tuple[list[dict], list[dict]]:
    """b serves m; `aa` is created as b's copy: the same score and no size
    (a copy-pasted entry), so the name order alone (O4) gives m to aa."""
    before = [model("m"), runtime("b", supportedModelFormats=[entry(priority=2)]),
              runtime("c", supportedModelFormats=[entry(priority=1)])]
    return before, before + [runtime("aa", supportedModelFormats=[entry(priority=2)])]


def test_a_win_on_the_name_order_alone_is_flagged_fragile(tmp_path):
    """Issue 37: a win on the name tie-break alone (O4; a copy-pasted field)
    was not flagged. It is, with what ties, in every output."""
    before, after = tie()
    paths = pair(tmp_path, before, after)
    why = ("aa wins over b on the name order alone (O4): both have score 4 (spec.supportedModelFormats[].priority "
           "and weights) and no distance (the model has no modelParameterSize)")
    text = run_cli("compare", *paths, "--model", "m").stdout
    assert f"Decided by O4 (name order): aa comes before b in name order\nFragile: {why}\n" in text
    (item,) = json.loads(run_cli("compare", *paths, "--model", "m", "-o", "json").stdout)["items"]
    assert item["fragile"] == why
    markdown = run_cli("compare", *paths, "--model", "m", "-o", "markdown").stdout
    assert f"- ` --model m -n default `: ` {why} `\n" in markdown
    (tmp_path / "robust").mkdir()
    robust = copy.deepcopy(after)
    robust[-1]["spec"]["supportedModelFormats"][0]["priority"] = 3
    assert json.loads(run_cli("compare", *pair(tmp_path / "robust", before, robust), "--model", "m",
                              "-o", "json").stdout)["items"][0]["fragile"] is None


def test_changes_that_changed_no_selection_are_summarised(tmp_path):
    """Issue 37: of 41 selection-relevant changes only 15 appeared (37
    runtimes created, 23 selected by no model). Those in no cause are
    summarised: runtimes selected by none, qualifying for none."""
    before = catalog(models=2)
    after = created_for_all(before)  # `new` takes both models
    after.append(runtime("spare", supportedModelFormats=[entry(modelFormat=before[0]["spec"]["modelFormat"])]))
    after.append(runtime("orphan", supportedModelFormats=[entry(modelFormat={"name": "gguf", "version": "1"})]))
    paths = pair(tmp_path, before, after)
    text = run_cli("compare", *paths, "--all-models").stdout
    assert ("Changes read by selection that changed no selection: 2 changes in 2 objects: 2 runtimes created "
            "(2 selected by no model, 1 qualifying for none).\n") in text
    assert re.search(r"\n  .*after\.yaml:\d+: ClusterServingRuntime orphan: created; selected by none, qualifies for none\n", text)
    assert re.search(r"\n  .*after\.yaml:\d+: ClusterServingRuntime spare: created; selected by none, qualifies for 1\n", text)
    document = json.loads(run_cli("compare", *paths, "--all-models", "-o", "json").stdout)
    assert [(e["object"]["name"], e["change"], e["selectedBy"], e["qualifiesFor"]) for e in document["changedNoSelection"]] == [
        ("orphan", "created", 0, 0), ("spare", "created", 0, 1)]
    markdown = run_cli("compare", *paths, "--all-models", "-o", "markdown").stdout
    assert ("<details><summary>Changes read by selection that changed no selection: 2 changes in 2 objects: "
            "2 runtimes created (2 selected by no model, 1 qualifying for none)</summary>") in markdown


# --- tests that kill the analysis layer's mutations (issue 39) ----------------------------


def test_a_runtime_qualifying_on_neither_side_still_bounds_the_search(tmp_path):
    """Issue 39 survivor 2 (kills `context_changed` forced false in
    analysis/compare._relevant): m changes format and size. c qualifies on
    neither side but, with the format change alone, takes m (priority 5):
    so the smallest set is both changes. With c left out of the search,
    the format change alone passes the search and fails its verification
    ("internal error: compare: the edit set … gives c")."""
    onnx = {"name": "onnx", "version": "1"}
    before = [model("m", modelParameterSize="7B"), runtime("a", supportedModelFormats=[entry()]),
              runtime("b", supportedModelFormats=[entry(modelFormat=onnx, priority=1)]),
              runtime("c", supportedModelFormats=[entry(modelFormat=onnx, priority=5)],
                      modelSizeRange={"min": "1B", "max": "10B"})]
    after = copy.deepcopy(before)
    after[0]["spec"].update(modelFormat=onnx, modelParameterSize="70B")
    code, report = causes(tmp_path, before, after)
    assert code == 1
    (item,) = report["items"]
    assert (item["before"]["selected"]["name"], item["after"]["selected"]["name"]) == ("a", "b")
    assert [[c["path"] for c in cause] for cause in item["causes"]] == [["spec.modelFormat.name", "spec.modelParameterSize"]]


def test_the_edits_of_a_set_are_in_the_changes_order_past_ten(tmp_path):
    """Issue 39 survivor 4 (kills the sort of a set's edits in
    analysis/edits.EditTerms.decode): with 11 or more candidate edits a set
    printed e(11) before e(2). Here the one set is c disabled (the third
    change) and z raised to priority 3 (the twelfth)."""
    onnx = {"name": "onnx", "version": "1"}
    names = ["a", "b", "c", *(f"n{i}" for i in range(8)), "z"]
    before = [model("m")] + [runtime(name, supportedModelFormats=[entry(priority=3 if name == "c" else 2 if name.startswith("n") else 1)])
                             for name in names if name not in ("a", "b")]
    before += [runtime(name, supportedModelFormats=[entry(modelFormat=onnx, priority=1)]) for name in ("a", "b")]
    after = copy.deepcopy(before)
    for document in after[1:]:
        spec = document["spec"]
        if document["metadata"]["name"] == "c":
            spec["disabled"] = True
        elif document["metadata"]["name"] == "z":
            spec["supportedModelFormats"][0]["priority"] = 3
        elif document["metadata"]["name"] in ("a", "b"):
            spec["supportedModelFormats"][0]["priority"] = 2  # read by selection, qualifies on neither side
        else:
            spec["modelSizeRange"] = {"min": "1B", "max": "100B"}  # read by selection, no size to measure
    code, report = causes(tmp_path, before, after)
    (item,) = report["items"]
    assert (item["before"]["selected"]["name"], item["after"]["selected"]["name"]) == ("c", "z")
    assert len(report["changes"]) == 12
    assert [[(c["object"]["name"], c["path"]) for c in cause] for cause in item["causes"]] == [
        [("c", "spec.disabled"), ("z", "spec.supportedModelFormats[0].priority")]]
