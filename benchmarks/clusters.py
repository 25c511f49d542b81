"""Random but reproducible clusters for benchmarks (fixed seeds, no Hypothesis).

Shape (perf-notes.md): each runtime has 1-3 entries; about 30 % of runtimes
qualify for a model; a quarter are namespaced, a third have a size range.
"""

from __future__ import annotations

import random

API = "ome.io/v1beta1"
NAMESPACE = "bench"
FORMATS = [("safetensors", "transformers"), ("onnx", "onnxruntime"), ("gguf", "llama.cpp"), ("pytorch", "torch")]
ARCHITECTURES = ["LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"]
SIZES = ["500M", "1B", "3.21B", "7B", "8B", "13B", "70B", "405B"]


def model_documents(count: int, rng: random.Random) -> list[dict]:
    models = []
    for i in range(count):
        fmt, framework = FORMATS[0] if i % 3 == 0 else rng.choice(FORMATS)
        spec = {
            "modelFormat": {"name": fmt, "version": "1.0.0"},
            "modelFramework": {"name": framework, "version": "4.45.0"},
            "modelArchitecture": ARCHITECTURES[0] if i % 3 == 0 else rng.choice(ARCHITECTURES),
            "modelParameterSize": rng.choice(SIZES),
        }
        models.append({"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": f"model-{i:04d}"}, "spec": spec})
    return models


def runtime_documents(count: int, rng: random.Random) -> list[dict]:
    runtimes = []
    for i in range(count):
        entries = []
        priority = rng.randint(1, 4)  # one per runtime: W4 denies differing ones
        for _ in range(rng.randint(1, 3)):
            fmt, framework = FORMATS[0] if rng.random() < 0.5 else rng.choice(FORMATS)
            entries.append({
                "modelFormat": {"name": fmt, "version": "1.0.0", "weight": rng.choice([1, 1, 2, 0])},
                "modelFramework": {"name": framework, "version": "4.45.0" if rng.random() < 0.8 else "4.46.0"},
                "modelArchitecture": ARCHITECTURES[0] if rng.random() < 0.7 else rng.choice(ARCHITECTURES),
                "autoSelect": rng.random() < 0.8,
                "priority": priority,
            })
        spec: dict = {"supportedModelFormats": entries}
        if rng.random() < 1 / 3:
            low, high = sorted(rng.sample(range(len(SIZES)), 2))
            spec["modelSizeRange"] = {"min": SIZES[low], "max": SIZES[high]}
        metadata = {"name": f"runtime-{i:05d}"}
        kind = "ClusterServingRuntime"
        if rng.random() < 0.25:
            kind, metadata["namespace"] = "ServingRuntime", NAMESPACE
        runtimes.append({"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec})
    return runtimes


def cluster_documents(runtimes: int, models: int = 1, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    return model_documents(models, rng) + runtime_documents(runtimes, rng)


def namespaced_documents(runtimes: int, seed: int = 0, per_namespace: int = 10) -> list[dict]:
    """Many namespaces (issue 28): `runtimes` ServingRuntimes spread over
    runtimes/10 namespaces (or runtimes/per_namespace), each namespace with
    one BaseModel, so `explain --all-models` asks runtimes/10 queries of 10
    candidates each."""
    rng = random.Random(seed)
    spaces = max(runtimes // per_namespace, 1)
    models = model_documents(spaces, rng)
    for i, model in enumerate(models):
        model["kind"], model["metadata"]["namespace"] = "BaseModel", f"ns-{i:05d}"
    documents = runtime_documents(runtimes, rng)
    for i, runtime in enumerate(documents):
        runtime["kind"], runtime["metadata"]["namespace"] = "ServingRuntime", f"ns-{i % spaces:05d}"
    return models + documents
