"""GitOps edits (issue 37 item 5): steer -o manifests, steer --write
(ome_asp/input/gitops.py: only the edited fields change, comments, key order
and formatting kept, a misspelt key renamed, each file read back and selected
again) and --overlay (a hand-edited copy replaces the objects it holds)."""

from __future__ import annotations

import difflib
import shutil

import pytest
import yaml
from conftest import FIXTURES, run_cli

from ome_asp.input import gitops

GITOPS = FIXTURES / "steer" / "gitops" / "manifests.yaml"
STEER = ("steer", "--model", "llama-70b", "--want", "vllm-new")


def changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "catalog.yaml"
    shutil.copy(GITOPS, path)
    return path


def test_write_changes_only_the_edited_fields_and_selects_again(catalog):
    """The fixture's misspelt `autoselect` is renamed in its place (fails
    when the key is added beside it: a line more, and the loader's warning
    stays), the priority set in place, every comment, quote, flow mapping,
    blank line and the long comment line as written (fails with ruamel's
    default indentation or line width)."""
    before = catalog.read_text()
    run = run_cli(*STEER, "-f", str(catalog), "--write")
    assert run.code == 0, run.stderr
    assert changed_lines(before, catalog.read_text()) == [
        "-          autoselect: true  # misspelt: the loader reads it as absent",
        "-          priority: 1  # as vllm-old's",
        "+          autoSelect: true  # misspelt: the loader reads it as absent",
        "+          priority: 2  # as vllm-old's",
    ]
    assert run.stderr.splitlines()[-1] == (
        f"wrote edit set 1 (2 edits) to {catalog}; read back and selected again: ClusterServingRuntime vllm-new")
    again = run_cli("select", "--model", "llama-70b", "-f", str(catalog))
    assert (again.code, again.stdout, again.stderr) == (0, "ClusterServingRuntime vllm-new\n", "")


def steer_isvc(tmp_path, own: str) -> list[str]:
    """steer --write --own OWN on a copy of fixtures/steer/isvc: the lines it changed."""
    path = tmp_path / "isvc.yaml"
    shutil.copy(FIXTURES / "steer" / "isvc" / "manifests.yaml", path)
    before = path.read_text()
    run = run_cli("steer", "--isvc", "chat", "-n", "team-a", "-f", str(path), "--want", "srt-h100", "--own", own, "--write")
    assert run.code == 0, run.stderr
    return changed_lines(before, path.read_text())


def test_a_list_written_in_flow_style_stays_so(tmp_path):
    """--own runtime: the runtime's acceleratorClasses (a merge patch)
    replaced in flow style as written (fails with ruamel's block list), its
    mode annotation replaced in place, its priority added."""
    assert steer_isvc(tmp_path, "runtime") == [
        "-    acceleratorClasses: [nvidia-h100]",
        "+    acceleratorClasses: [nvidia-h100, nvidia-a100]",
        "-      ome.io/deploymentMode: MultiNode",
        "+      ome.io/deploymentMode: RawDeployment",
        "+    priority: 2",
    ]


def test_the_inference_service_s_annotations_are_written_in_place(tmp_path):
    assert steer_isvc(tmp_path, "isvc") == [
        "-    ome.io/accelerator-class: nvidia-a100",
        "+    ome.io/accelerator-class: nvidia-h100",
        "-      ome.io/deploymentMode: RawDeployment",
        "+      ome.io/deploymentMode: MultiNode",
    ]


def test_an_item_of_a_kind_list_is_written(tmp_path):
    path = tmp_path / "list.yaml"
    documents = list(yaml.safe_load_all(GITOPS.read_text()))
    path.write_text("# kubectl get -o yaml\n" + yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": documents},
                                                               sort_keys=False))
    run = run_cli(*STEER, "-f", str(path), "--write")
    assert run.code == 0, run.stderr
    [listing] = yaml.safe_load_all(path.read_text())
    entry = listing["items"][2]["spec"]["supportedModelFormats"][0]
    assert (entry["autoSelect"], entry["priority"], "autoselect" in entry) == (True, 2, False)
    assert path.read_text().startswith("# kubectl get -o yaml\n")


def test_manifests_prints_the_edited_objects(catalog):
    run = run_cli(*STEER, "-f", str(catalog), "-o", "manifests")
    assert run.code == 0
    [runtime] = yaml.safe_load_all(run.stdout)
    entry = runtime["spec"]["supportedModelFormats"][0]
    assert runtime["metadata"]["name"] == "vllm-new"
    assert list(entry) == ["modelFormat", "modelFramework", "modelArchitecture", "autoSelect", "priority"]
    assert (entry["autoSelect"], entry["priority"]) == (True, 2)


def test_edit_set_picks_the_set(catalog):
    """--edit-set 2 is the second of steer's sets; past the last, a usage error."""
    run = run_cli(*STEER, "-f", str(catalog), "--no-robust", "-o", "manifests", "--edit-set", "2")
    assert (run.code, run.stderr.splitlines()[-1]) == (2, "error: --edit-set 2: steer found 1 edit set")


def test_write_refuses_what_was_not_read_from_a_file(catalog):
    before = catalog.read_bytes()
    run = run_cli(*STEER, "-f", "-", "--write", stdin=before)
    assert run.code == 2
    assert run.stderr.splitlines()[-1].startswith("error: --write: <stdin>:")
    assert catalog.read_bytes() == before


def test_a_document_ruamel_cannot_write_back_is_written_with_a_warning(catalog):
    """Mixed indentation (metadata by 2, spec by 4): ruamel writes one indent,
    so lines besides the edited ones change: said, not hidden."""
    text = catalog.read_text().replace("metadata:\n    name: vllm-new\n    annotations:\n        owner",
                                       "metadata:\n  name: vllm-new\n  annotations:\n    owner")
    catalog.write_text(text)
    run = run_cli(*STEER, "-f", str(catalog), "--write")
    assert run.code == 0
    assert f"warning: --write: {catalog}: document 3: ruamel.yaml does not write it back as written" in run.stderr


def test_a_file_that_would_not_read_back_is_not_written(catalog, monkeypatch):
    """The check before writing: a document edited wrongly (here: not at all)
    is an internal error and the file is left as it was."""
    before = catalog.read_bytes()
    monkeypatch.setattr(gitops, "_edited_chunk", lambda chunk, patches: (chunk, True))
    run = run_cli(*STEER, "-f", str(catalog), "--write")
    assert run.code == 3 and "would not read back as the edited objects" in run.stderr
    assert catalog.read_bytes() == before


@pytest.mark.parametrize("text, indentation", [
    ("spec:\n  list:\n  - a: 1\n    b:\n      c: 2\n", (2, 2, 0)),
    ("spec:\n  list:\n    - a: 1\n      b:\n        c: 2\n", (2, 4, 2)),
    ("spec:\n    list:\n        - a: 1\n          b:\n              c: 2\n", (4, 6, 4)),
    ("# a comment: with a colon\nkey: value  # and: here\n", (2, 2, 0)),
])
def test_indentation_is_read_from_the_text(text, indentation):
    assert gitops._indentation(text) == indentation


def test_set_renames_only_a_misspelling_of_the_key():
    """`autoselect` is renamed to autoSelect in its place; a key the loader
    knows (`priority`) is never taken for a misspelling; outside the
    loader's tables only a key in other case is."""
    entry = {"modelFormat": {}, "autoselect": True, "priority": 1}
    gitops.apply(entry, "json", [{"op": "add", "path": "/autoSelect", "value": True}])
    assert list(entry.items()) == [("modelFormat", {}), ("autoSelect", True), ("priority", 1)]
    spec = {"Disabled": False, "disable": True}
    gitops.apply(spec, "json", [{"op": "add", "path": "/disabled", "value": True}])
    assert list(spec.items()) == [("disabled", True), ("disable", True)]


# --- --overlay ------------------------------------------------------------------------


def test_overlay_replaces_objects_of_the_same_kind_and_name(catalog, tmp_path):
    """A hand-edited copy of the runtime checked against the catalog: -f of
    both is refused as a duplicate (today's answer), --overlay replaces it,
    and the replaced object's warnings go with it."""
    edited = tmp_path / "edited.yaml"
    edited.write_text(catalog.read_text().replace("autoselect: true", "autoSelect: true")
                      .replace("priority: 1  # as", "priority: 2  # as"))
    both = run_cli("select", "--model", "llama-70b", "-f", str(catalog), "-f", str(edited))
    assert both.code == 2 and "duplicate object" in both.stderr
    run = run_cli("select", "--model", "llama-70b", "-f", str(catalog), "--overlay", str(edited))
    assert (run.code, run.stdout, run.stderr) == (0, "ClusterServingRuntime vllm-new\n", "")
    without = run_cli("select", "--model", "llama-70b", "-f", str(catalog))
    assert without.stdout == "ClusterServingRuntime vllm-old\n" and "autoselect" in without.stderr


def test_an_overlay_holding_an_object_twice_is_a_duplicate(catalog, tmp_path):
    edited = tmp_path / "edited.yaml"
    edited.write_text(catalog.read_text() + "---\n" + catalog.read_text().split("---\n")[1])
    run = run_cli("select", "--model", "llama-70b", "-f", str(catalog), "--overlay", str(edited))
    assert run.code == 2 and "duplicate object" in run.stderr.splitlines()[-1]
