"""Misspelt names get a "did you mean" (issue 24): --model and --isvc under
E4's error line (which stays OME's), --runtime and steer's --want on theirs;
and a table that wraps past a screen (E12) points to -o wide (D-97)."""

from __future__ import annotations

import textwrap

import pytest
from conftest import FIXTURES, run_cli

WORKED = ["-n", "llama-demo", "-f", str(FIXTURES / "worked-example")]


@pytest.mark.parametrize("argv, error, hint", [
    (["explain", "--model", "llama-3-2-3b-instruc"], 'error: clusterbasemodels.ome.io "llama-3-2-3b-instruc" not found',
     'hint: did you mean "llama-3-2-3b-instruct"?'),
    (["explain", "--isvc", "llama-chta"], 'error: inferenceservices.ome.io "llama-chta" not found',
     'hint: did you mean "llama-chat"?'),
    (["steer", "--model", "llama-3-2-3b-instruc", "--want", "vllm-llama"],
     'error: clusterbasemodels.ome.io "llama-3-2-3b-instruc" not found', 'hint: did you mean "llama-3-2-3b-instruct"?'),
    (["select", "--isvc", "llama-chatt"], 'error: inferenceservices.ome.io "llama-chatt" not found',
     'hint: did you mean "llama-chat"?'),
])
def test_a_misspelt_model_or_isvc_gets_a_suggestion_under_the_error(argv, error, hint):
    run = run_cli(*argv, *WORKED)
    assert run.code in (1, 2)
    assert run.stderr.splitlines() == [error, hint]


def test_a_name_nothing_is_close_to_gets_no_suggestion():
    assert "did you mean" not in run_cli("explain", "--model", "zzz", *WORKED).stderr


def test_a_misspelt_runtime_or_want_gets_a_suggestion():
    run = run_cli("explain", "--model", "llama-3-2-3b-instruct", "--runtime", "vllm-lama", *WORKED)
    assert 'no candidate runtime of that name for this query; did you mean "vllm-llama"?' in run.stderr
    run = run_cli("steer", "--model", "llama-3-2-3b-instruct", "--want", "vllm-lama", *WORKED)
    assert run.code == 2 and 'did you mean "vllm-llama"?' in run.stderr


def _catalog(tmp_path, runtimes: int):
    docs = [textwrap.dedent("""\
        apiVersion: ome.io/v1beta1
        kind: ClusterBaseModel
        metadata: {name: llama}
        spec:
          modelFormat: {name: safetensors, version: "1.0.0"}
          modelFramework: {name: transformers, version: "4.45.0"}
          modelArchitecture: LlamaForCausalLM
        """)]
    for k in range(runtimes):  # each fails Q5 with a long reason that wraps
        docs.append(textwrap.dedent(f"""\
            apiVersion: ome.io/v1beta1
            kind: ClusterServingRuntime
            metadata: {{name: a-rather-long-runtime-name-{k:03}}}
            spec:
              supportedModelFormats:
              - modelFormat: {{name: safetensors, version: "1.0.0"}}
                modelFramework: {{name: transformers, version: "4.4{k}.0"}}
                modelArchitecture: LlamaForCausalLM
                autoSelect: true
            """))
    path = tmp_path / "catalog.yaml"
    path.write_text("---\n".join(docs))
    return str(path)


def test_a_table_wrapping_past_a_screen_points_to_wide(tmp_path):
    run = run_cli("explain", "--model", "llama", "-f", _catalog(tmp_path, 8))
    lines = run.stdout.count("\n")
    assert lines > 50
    assert f"hint: the table wraps to {lines} lines at 80 columns (E12); -o wide prints one line per runtime (9 lines), " \
           "--compatible-only only the 1 compatible." in run.stderr
    assert "hint" not in run_cli("explain", "--model", "llama", "-f", _catalog(tmp_path, 8), "-o", "wide").stderr


def test_a_table_within_a_screen_gets_no_hint(tmp_path):
    run = run_cli("explain", "--model", "llama", "-f", _catalog(tmp_path, 3))
    assert run.stdout.count("\n") <= 50 and "hint" not in run.stderr
