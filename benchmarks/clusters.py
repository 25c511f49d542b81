"""Random but reproducible clusters for benchmarks (fixed seeds, no Hypothesis).

Shape (perf-notes.md): each runtime has 1-3 entries; about 30 % of runtimes
qualify for a model; a quarter are namespaced, a third have a size range.
"""

from __future__ import annotations

import copy
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


# OME's catalog (config/runtimes, config/models of v0.1.5) as issue 40 measured
# it: each runtime serves one model family (one entry, a few two), 81
# architectures for 205 runtimes (a fifth Llama), the transformers version of
# its family's release, a size band, autoSelect on about 40 % of the entries;
# each model is one runtime's family, version and size. About 0.25-0.3 % of the
# rows qualify; almost every No row fails Q5 with E15's details (architecture,
# framework version), many Q6 and Q7 after it. COUNTS are the runtimes per
# architecture there, the largest first; the rest are named ArchNForCausalLM.
CATALOG_ARCHITECTURES = [
    "LlamaForCausalLM", "Qwen2ForCausalLM", "MllamaForConditionalGeneration", "Llama4ForConditionalGeneration",
    "Qwen3ForCausalLM", "MixtralForCausalLM", "DeepseekV3ForCausalLM", "MistralForCausalLM", "GptOssForCausalLM",
    "Phi3ForCausalLM", "NemotronHForCausalLM", "MistralModel", "GPTNeoXForCausalLM", "Gemma2ForCausalLM",
    "DeciLMForCausalLM", "BailingMoeForCausalLM", "Qwen2_5_VLForConditionalGeneration", "Qwen2VLForConditionalGeneration",
    "InternLM2ForCausalLM", "Gemma3ForConditionalGeneration", "Starcoder2ForCausalLM", "BaichuanForCausalLM",
    "LlavaQwenForCausalLM",
]
COUNTS = [42, 23, 9, 9, 7, 6, 6, 6, 6, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2] + [1] * 58
SIZE_BANDS = [("1B", "3B"), ("5B", "9B"), ("6B", "8B"), ("7B", "9B"), ("10B", "15B"), ("12B", "16B"), ("20B", "25B"),
              ("30B", "40B"), ("45B", "50B"), ("65B", "75B"), ("115B", "125B"), ("200B", "260B"), ("650B", "700B")]
# A likely-typo warning (I11's "did you mean"): a key of an entry, or of a
# model's framework, written with one letter dropped, swapped or doubled.
TYPO_KEYS = [("entry", "modelArchitecture"), ("entry", "autoSelect"), ("entry", "priority"), ("framework", "version"),
             ("format", "weight"), ("model framework", "version"), ("model format", "version")]


def misspellings(key: str) -> list[str]:
    """`key` with one letter dropped, two neighbours swapped or one doubled (distinct, not `key`)."""
    found = [key[:k] + key[k + 1:] for k in range(len(key))]
    found += [key[:k] + key[k + 1] + key[k] + key[k + 2:] for k in range(len(key) - 1)]
    found += [key[:k] + key[k] + key[k:] for k in range(len(key))]
    return [word for word in dict.fromkeys(found) if word != key]


def family(architecture: str) -> str:
    """A name part for an architecture: LlamaForCausalLM -> llama."""
    for suffix in ("ForCausalLM", "ForConditionalGeneration"):
        architecture = architecture.removesuffix(suffix)
    return architecture.lower().replace("_", "-")


def catalog_documents(runtimes: int, models: int, seed: int = 0, typos: int | None = None) -> list[dict]:
    """A No-heavy cluster with OME's catalog's shape (the comment above):
    `models` ClusterBaseModels and `runtimes` ClusterServingRuntimes with full
    engine configs, and `typos` likely-typo warnings (default: 0.3 per
    runtime, 166 at 550), each with its own text."""
    from compare import ENGINES, runtime  # the engine config OME's runtimes carry

    rng = random.Random(seed)
    architectures = CATALOG_ARCHITECTURES + [f"Arch{k}ForCausalLM" for k in range(len(COUNTS) - len(CATALOG_ARCHITECTURES))]
    versions = {arch: [f"4.{rng.randint(28, 57)}.{rng.choice([0, 0, 1, 2, 3])}" + (".dev0" if rng.random() < 0.3 else "")
                       for _ in range(1 + count // 6)] for arch, count in zip(architectures, COUNTS)}
    bands = {arch: rng.sample(SIZE_BANDS, 1 + count // 8) for arch, count in zip(architectures, COUNTS)}
    out = []
    for i in range(runtimes):
        arch = rng.choices(architectures, COUNTS)[0]
        low, high = rng.choice(bands[arch])
        engine = ENGINES[i % 2]
        doc = runtime(f"{engine[0]}-{family(arch)}-{i:04d}", arch, 1, 1, engine, "v0.4.6.post1",
                      priority=2 if rng.random() < 0.03 else 1, auto=rng.random() < 0.4, gpus=1 + i % 8)
        doc["spec"]["modelSizeRange"] = {"min": low, "max": high}
        if rng.random() < 0.05:
            del doc["spec"]["modelSizeRange"]
        entry = doc["spec"]["supportedModelFormats"][0]
        entry["modelFramework"]["version"] = rng.choice(versions[arch])
        if rng.random() < 0.02:  # a second architecture of the family
            entry2 = copy.deepcopy(entry)
            entry2["modelArchitecture"] = rng.choice(architectures)
            doc["spec"]["supportedModelFormats"].append(entry2)
        out.append(doc)
    catalog = []
    for i in range(models):
        home = rng.choice(out)["spec"]  # the runtime this model was added with
        entry = home["supportedModelFormats"][0]
        size = home.get("modelSizeRange", {}).get(rng.choice(["min", "max"]), rng.choice(SIZES))
        catalog.append({"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": f"{family(entry['modelArchitecture'])}-{size.lower()}-{i:03d}"},
                        "spec": {"vendor": "example", "disabled": False,
                                 "modelFormat": {"name": "safetensors", "version": "1.0.0"},
                                 "modelFramework": dict(entry["modelFramework"]),
                                 "modelArchitecture": entry["modelArchitecture"], "modelParameterSize": size,
                                 "storage": {"storageUri": f"hf://example/model-{i}", "key": "hf-token"}}})
    words = [(where, key, word) for where, key in TYPO_KEYS for word in misspellings(key)]
    count = min(runtimes * 3 // 10 if typos is None else typos, len(words))
    for k, (where, key, word) in enumerate(rng.sample(words, count)):
        model = catalog[k * len(catalog) // count]["spec"]
        entry = out[k * len(out) // count]["spec"]["supportedModelFormats"][0]
        node = {"entry": entry, "framework": entry["modelFramework"], "format": entry["modelFormat"],
                "model framework": model["modelFramework"], "model format": model["modelFormat"]}[where]
        node[word] = node.pop(key, 1)
    return catalog + out
