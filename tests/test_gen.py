"""`ome-asp gen`: random cases, deterministic for a seed, that pass `ome-asp check`;
the builders behind both gen and the Hypothesis strategies."""

from __future__ import annotations

import io

import yaml
from conftest import run_cli

from ome_asp.conformance import gen
from ome_asp.input.loader import load
from ome_asp.render.case_files import exercised_rules
from ome_asp.testing.builders import RandomChooser, cluster, seeded, shuffled


def _tree(directory) -> dict:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_gen_output_passes_check_and_reports_rules(tmp_path):
    result = run_cli("gen", "--count", "12", "--seed", "5", "-o", str(tmp_path))
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"wrote 12 cases to {tmp_path} (seed 5, profile v1.3)"
    assert lines[1].startswith("rules exercised: ")
    assert any(line.startswith("  Q: Q1×") for line in lines)
    assert len(list(tmp_path.glob("*/case.yaml"))) == 12
    checked = run_cli("check", str(tmp_path))
    assert checked.code == 0, checked.stdout
    assert checked.stdout.endswith("12 passed, 0 failed\n")


def test_gen_is_deterministic_for_a_seed(tmp_path, monkeypatch):
    """The same cases for a seed, whatever -j answers them with (issue 26: batches in worker processes)."""
    run_cli("gen", "--count", "3", "--seed", "11", "-o", str(tmp_path / "a"), "-j", "1")
    monkeypatch.setattr(gen, "BATCH_CASES", 1)
    run_cli("gen", "--count", "3", "--seed", "11", "-o", str(tmp_path / "b"), "-j", "2")
    run_cli("gen", "--count", "3", "--seed", "12", "-o", str(tmp_path / "c"))
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c")


def test_generated_manifests_load_I4():
    """The builders produce valid manifests (I4): ome-asp's loader accepts every one."""
    for index in range(40):
        documents, query = seeded(3, index)
        load(["-"], stdin=io.BytesIO(yaml.safe_dump_all(documents).encode()))
        assert query["namespace"] and ("model" in query) != ("isvc" in query)


def test_random_chooser_is_reproducible():
    assert cluster(RandomChooser("x:1")) == cluster(RandomChooser("x:1"))
    assert sorted(shuffled(RandomChooser(1), list(range(10)))) == list(range(10))


def test_rules_are_derived_from_the_answers():
    """Q6/Z4 from a size reason, O1 from a ranking with both kinds, O8 from a no-runtime message."""
    runtime = {"kind": "ClusterServingRuntime", "namespace": None, "name": "c"}
    explain = {
        "selected": None, "ranking": [],
        "rejected": [{**runtime, "failedCheck": "Q6", "reason": "model size 7B is outside supported range [8B, inf)",
                      "checks": ["Q6"]}],
        "message": "no runtime found to support model x with format x in namespace n",
    }
    rules = exercised_rules([], {"namespace": "n", "model": "m"}, {"explain": explain})
    assert {"Q6", "Z3", "Z4", "O8", "E14", "A6", "D7"} <= set(rules)
    ranked = {"score": 2, "distance": None, "priority": 1, "weight": 2}
    explain = {"selected": runtime, "message": None, "rejected": [],
               "ranking": [{"kind": "ServingRuntime", "namespace": "n", "name": "s", **ranked}, {**runtime, **ranked}]}
    assert {"O1", "O5", "S1", "E9"} <= set(exercised_rules([], {"namespace": "n", "model": "m"}, {"explain": explain}))
