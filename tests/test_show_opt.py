"""`--show opt` on explain, steer and compare (issue 23, D-78; as `spack
solve --show opt`): each optimising program's named criteria (criterion/2)
and the optimum's value at each, decoded from clingo's cost vector by
`answer.named_cost`."""

from __future__ import annotations

import json

import pytest
import yaml
from conftest import FIXTURES, run_cli
from manifests import entry, model, runtime

from ome_asp.input.loader import load
from ome_asp.solver import ask
from ome_asp.solver.facts import Query, build_facts
from ome_asp.solver.programs import Variant

WORKED = str(FIXTURES / "worked-example")
SEED = ["--model", "llama-3-2-3b-instruct", "-n", "llama-demo", "-f", WORKED]
ORDER = ["namespaced_first", "higher_score", "smaller_distance", "name_order"]


def write(path, documents) -> str:
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return str(path)


def criteria(document: dict) -> dict[str, int]:
    return {c["criterion"]: c["value"] for c in document["criteria"]}


@pytest.mark.parametrize("cluster", [
    [model("m"), runtime("b", supportedModelFormats=[entry(priority=2)]), runtime("a"), runtime("c", "default")],
    [model("m"), runtime("b", supportedModelFormats=[entry(priority=2)]), runtime("a")],
    [model("m", modelParameterSize="7B"), runtime("b", modelSizeRange={"min": "1B", "max": "9B"}),
     runtime("a", modelSizeRange={"min": "6B", "max": "8B"})],
], ids=["a ServingRuntime first (O1)", "the higher score (O2)", "the smaller distance (O3)"])
def test_explains_optimum_is_the_selected_runtimes_rank_key(tmp_path, cluster):
    """O1-O5: selection.lp's levels, highest first, named as ordering.lp
    names them, and the optimum's values are the selected runtime's
    rank_key/3 (scope 0 or 1, then ranks): a decoder naming the cost vector
    in the wrong order, or a level of selection.lp read from the wrong step
    of the key, fails."""
    path = write(tmp_path / "c.yaml", cluster)
    result = run_cli("explain", "--model", "m", "-f", path, "--show", "opt", "-o", "json")
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    assert [(c["priority"], c["criterion"]) for c in document["criteria"]] == list(zip((4, 3, 2, 1), ORDER))
    answer = ask.solve(build_facts(load([path]), [Query("default", model="m")]), 1, Variant.EXPLAIN).queries[1]
    assert [c["value"] for c in document["criteria"]] == list(answer.verdicts[answer.selected].cost)


def test_explain_prints_the_criteria_as_a_table():
    result = run_cli("explain", *SEED, "--show", "opt")
    assert result.code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "Optimization criteria of selection.lp, highest priority first:"
    assert lines[1].split() == ["PRIORITY", "CRITERION", "VALUE"]
    assert [line.split()[:2] for line in lines[2:]] == [["4", "namespaced_first"], ["3", "higher_score"],
                                                        ["2", "smaller_distance"], ["1", "name_order"]]
    assert lines[2].split()[2] == "0"  # team-llama, a ServingRuntime of the namespace (O1)


def test_explain_without_a_qualifying_runtime_optimises_nothing(tmp_path):
    """The keep-shape line keeps every level: all 0 when nothing is selected (O8)."""
    path = write(tmp_path / "c.yaml", [model("m"), runtime("a", supportedModelFormats=[entry(modelFormat={"name": "onnx"})])])
    document = json.loads(run_cli("explain", "--model", "m", "-f", path, "--show", "opt", "-o", "json").stdout)
    assert criteria(document) == dict.fromkeys(ORDER, 0)


def test_explain_all_models_has_no_optimum():
    result = run_cli("explain", "--all-models", "-n", "llama-demo", "-f", WORKED, "--show", "opt")
    assert result.code == 1 and result.stderr.startswith("error: --show opt needs one query")


def test_steers_optimum_counts_the_edits_of_its_sets():
    """steer.lp's levels: fewest_edits is the size of every edit set steer
    reports, the seed's (priority 3 -> 4 of srt-llama-small, team-llama
    disabled: O1, O2) one edit to another object, one of each kind."""
    edit_sets = json.loads(run_cli("steer", *SEED, "--want", "srt-llama-small", "-o", "json").stdout)["editSets"]
    result = run_cli("steer", *SEED, "--want", "srt-llama-small", "--show", "opt", "-o", "json")
    assert result.code == 0
    found = criteria(json.loads(result.stdout))
    assert {len(s["edits"]) for s in edit_sets} == {found["fewest_edits"]} == {2}
    assert found["fewest_edits_to_other_objects"] == 1
    assert found["fewest_edits_of_kind(priority)"] == found["fewest_edits_of_kind(disable)"] == 1
    assert found["ranges_kept"] == found["fewest_edits_of_kind(weight)"] == 0
    assert len(found) == 22  # issue 24: the runtime's classes and mode annotation, its mode's change, quirk edits


def test_steer_without_a_search_says_so(tmp_path):
    """A runtime no edit set makes win has no optimum (exit 1)."""
    path = write(tmp_path / "c.yaml", [model("m"), runtime("a"), runtime("b", supportedModelFormats=[entry(modelFormat={"name": "onnx"})])])
    result = run_cli("steer", "--model", "m", "-f", path, "--want", "b", "--show", "opt", "--own", "runtime")
    assert result.stdout.startswith("No optimum")


def test_compares_optimum_is_the_size_of_its_causes(tmp_path):
    """compare.lp's one level: fewest_edits is the size of each smallest
    cause (b's priority 1 -> 3 moves m from a to b, O2)."""
    before = [model("m"), runtime("a", supportedModelFormats=[entry(priority=2)]), runtime("b", supportedModelFormats=[entry(priority=1)])]
    after = [model("m"), runtime("a", supportedModelFormats=[entry(priority=2)]), runtime("b", supportedModelFormats=[entry(priority=3)])]
    pair = ["--before", write(tmp_path / "before.yaml", before), "--after", write(tmp_path / "after.yaml", after), "--model", "m"]
    causes = json.loads(run_cli("compare", *pair, "-o", "json").stdout)["items"][0]["causes"]
    result = run_cli("compare", *pair, "--show", "opt", "-o", "json")
    assert result.code == 1  # a selection changed
    (item,) = json.loads(result.stdout)["items"]
    assert item["query"]["model"] == "m"
    assert criteria(item) == {"fewest_edits": 1} and {len(c) for c in causes} == {1}
    text = run_cli("compare", *pair, "--show", "opt").stdout
    assert text.splitlines()[:2] == ["# compare --model m -n default", "Optimization criteria of compare.lp, highest priority first:"]


def test_compare_of_profiles_has_no_optimum():
    result = run_cli("compare", "--profiles", "v1.3,v1.2.2", "-f", WORKED, "--all", "-n", "llama-demo", "--show", "opt")
    assert result.code == 2 and "--show opt" in result.stderr
