"""Manifests for CLI tests: one matching entry, runtime and model of the worked
example's shape, with overrides."""

from __future__ import annotations

import yaml


def entry(**overrides) -> dict:
    """A supportedModelFormats entry that matches the model; an override of None drops the field."""
    base = {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
        "modelArchitecture": "LlamaForCausalLM",
        "autoSelect": True,
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def runtime(name: str, namespace: str | None = None, **spec) -> dict:
    metadata = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    spec.setdefault("supportedModelFormats", [entry()])
    kind = "ServingRuntime" if namespace is not None else "ClusterServingRuntime"
    return {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": metadata, "spec": spec}


def model(name: str = "m", namespace: str | None = None, **spec) -> dict:
    metadata = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    base = {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
        "modelArchitecture": "LlamaForCausalLM",
    }
    base.update(spec)
    kind = "BaseModel" if namespace is not None else "ClusterBaseModel"
    return {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": metadata, "spec": base}


def write(tmp_path, *documents: dict) -> str:
    path = tmp_path / "manifests.yaml"
    path.write_text(yaml.safe_dump_all(documents, sort_keys=False))
    return str(path)
