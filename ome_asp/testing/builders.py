"""Random OME manifests, written once for two sources of randomness.

Every builder takes a *chooser* ``c`` with two methods, ``c.choice(options)``
and ``c.integer(low, high)``, and makes all its random decisions through them:

* :class:`RandomChooser` wraps ``random.Random(seed)``: ``ome-asp gen`` and
  ``ome-asp diff --generate`` use it, so a seed always gives the same cases,
  without Hypothesis installed;
* ``ome_asp.testing.strategies`` wraps Hypothesis' ``draw`` (``choice`` is
  ``sampled_from``, ``integer`` is ``integers``), so the same builders are
  Hypothesis strategies that shrink: towards the first option and the lower
  bound, which the builders arrange to mean "absent", "fewer" and "simpler".

The domains (names, formats, versions, sizes, ...) and what the builders
produce are described in ``ome_asp.testing.strategies``.
"""

from __future__ import annotations

import copy
import random
from typing import Protocol, Sequence, TypeVar

T = TypeVar("T")

API_VERSION = "ome.io/v1beta1"

NAMESPACES = ("default", "team-a", "team-b")
RUNTIME_NAMES = ("rt-a", "rt-b", "srt", "vllm", "zeta")
MODEL_NAMES = ("llama", "mistral", "qwen")
ISVC_NAMES = ("chat", "batch")
ACCELERATOR_CLASS_NAMES = ("nvidia-h100", "nvidia-a100", "amd-mi300")
FORMATS = ("safetensors", "onnx")
FRAMEWORKS = ("transformers", "vllm")
#: Valid, suffixed and unparseable (V1) version strings.
VERSIONS = ("1.0.0", "1.0", "v1.0.0", "2.0.0", "4.45.0.dev0", "1.08.0", "")
#: Set operators; absence (I3 default ``Equal``) is drawn separately. ``LessThan`` is "other" (V9).
OPERATORS = ("Equal", "GreaterThan", "GreaterThanOrEqual", "LessThan")
WEIGHTS = (-1, 0, 1, 2, 3_000_000_000)
PRIORITIES = (1, 2, 3)
#: Size strings; ``"7b"`` does not parse and reads as 0 (Z2).
SIZES = ("3.21B", "7B", "500M", "70B", "7b", "1.5T")
ARCHITECTURES = ("LlamaForCausalLM", "MistralForCausalLM")
QUANTIZATIONS = ("fp8", "int4")
#: Deployment-mode annotation values (``InvalidMode`` means no mode, D1; ISVCs also get ``""``).
RUNTIME_MODES = ("RawDeployment", "OMENative", "MultiNode", "VirtualDeployment", "InvalidMode")
#: ISVC ``spec.deploymentMode`` values allowed by I4.
ISVC_MODES = ("OMENative", "RawDeployment")
#: Top-level entry names (W4 groups; absent and ``""`` are the same group).
ENTRY_NAMES = ("vllm", "sglang", "")

MODE_KEY = "ome.io/deploymentMode"
ACCELERATOR_ANNOTATION = "ome.io/accelerator-class"
_PIPELINE_COMPONENTS = ("scheduler", "transformer", "vae")
_PIPELINE_CLASSES = ("FluxPipeline", "StableDiffusionPipeline")


class Chooser(Protocol):
    def choice(self, options: Sequence[T]) -> T:
        """One of `options` (shrinks towards the first)."""

    def integer(self, low: int, high: int) -> int:
        """An integer in [low, high] (shrinks towards low)."""


class RandomChooser:
    """A chooser driven by ``random.Random(seed)``: deterministic for a seed."""

    def __init__(self, seed) -> None:
        self.random = random.Random(seed)

    def choice(self, options: Sequence[T]) -> T:
        return options[self.random.randrange(len(options))]

    def integer(self, low: int, high: int) -> int:
        return self.random.randint(low, high)


class _Absent:
    """Marker for a field left out of a manifest."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def chance(c: Chooser, numerator: int, denominator: int) -> bool:
    """True with probability numerator/denominator (shrinks towards False)."""
    return c.integer(0, denominator - 1) >= denominator - numerator


def optional(c: Chooser, options: Sequence):
    """ABSENT half of the time, else one of `options` (shrinks towards ABSENT)."""
    return c.choice(options) if c.integer(0, 1) else ABSENT


def sample(c: Chooser, options: Sequence[T], min_size: int = 0, max_size: int | None = None) -> list[T]:
    """Distinct items of `options`, in drawn order (shrinks towards fewer, earlier ones)."""
    pool = list(options)
    count = c.integer(min_size, len(pool) if max_size is None else min(max_size, len(pool)))
    return [pool.pop(c.integer(0, len(pool) - 1)) for _ in range(count)]


def shuffled(c: Chooser, items: list) -> list:
    """A permutation of `items` (shrinks towards the given order)."""
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = i - c.integer(0, i)
        items[i], items[j] = items[j], items[i]
    return items


def _put(mapping: dict, key: str, value) -> None:
    if value is not ABSENT:
        mapping[key] = value


def model_version(c: Chooser):
    """A model's version: ABSENT or valid, rarely any of :data:`VERSIONS` (so entries can match)."""
    if c.integer(0, 7) == 7:
        return c.choice(VERSIONS)
    return optional(c, tuple(v for v in VERSIONS if v not in ("1.08.0", "")))


def size_range(c: Chooser) -> dict:
    """A ``modelSizeRange``: both bounds, one bound, or ``{}``."""
    result: dict = {}
    for bound in ("min", "max"):
        if chance(c, 3, 4):
            result[bound] = c.choice(SIZES)
    return result


def _pipeline_component(c: Chooser, model_side: bool) -> dict:
    component: dict = {}
    _put(component, "library", optional(c, ("diffusers", "transformers") if model_side else ("diffusers", "transformers", "")))
    _put(component, "type", optional(c, ("A", "B")))
    return component


def diffusion_pipeline(c: Chooser, model_side: bool = False) -> dict:
    """A ``diffusionPipeline`` for a model (``model_side``) or a runtime entry (may be ``{}``)."""
    pipeline: dict = {}
    _put(pipeline, "className", optional(c, _PIPELINE_CLASSES))
    for name in _PIPELINE_COMPONENTS:
        if c.integer(0, 1):
            pipeline[name] = _pipeline_component(c, model_side)
    extra = {c.choice(("controlnet", "image_encoder")): _pipeline_component(c, model_side) for _ in range(c.integer(0, 2))}
    if extra or (not model_side and chance(c, 1, 4)):
        pipeline["additionalComponents"] = extra
    return pipeline


def metadata(name: str, namespace: str | None, omit_default: bool) -> dict:
    result = {"name": name}
    if namespace is not None and not (omit_default and namespace == "default"):
        result["namespace"] = namespace  # I1: "default" may be left implicit
    return result


def model(c: Chooser, kind: str | None = None, name: str | None = None, namespace: str | None = None) -> dict:
    """A BaseModel or ClusterBaseModel (see strategies.models)."""
    kind = kind or c.choice(("BaseModel", "ClusterBaseModel"))
    name = name or c.choice(MODEL_NAMES)
    namespace = (namespace or c.choice(NAMESPACES)) if kind == "BaseModel" else None
    model_format: dict = {"name": c.choice(FORMATS)}
    _put(model_format, "version", model_version(c))
    if chance(c, 1, 25):  # M4: an empty or missing format name
        if c.integer(0, 1):
            model_format["name"] = ""
        else:
            del model_format["name"]
            model_format.setdefault("version", "1.0.0")
    spec: dict = {"modelFormat": model_format}
    if not chance(c, 1, 10):  # I7: sometimes no framework at all
        framework = {"name": c.choice(FRAMEWORKS)}
        _put(framework, "version", model_version(c))
        spec["modelFramework"] = framework
    _put(spec, "modelArchitecture", optional(c, ARCHITECTURES))
    _put(spec, "quantization", optional(c, QUANTIZATIONS))
    if chance(c, 2, 3):
        spec["modelParameterSize"] = c.choice(SIZES)
    if chance(c, 1, 8):
        spec["diffusionPipeline"] = diffusion_pipeline(c, model_side=True)
    _put(spec, "disabled", c.choice((ABSENT, ABSENT, ABSENT, False, True)))
    if chance(c, 1, 10):  # M5: ignored model operator and weight
        spec["modelFormat"]["operator"] = c.choice(OPERATORS)
        spec["modelFormat"]["weight"] = c.choice(WEIGHTS)
    return {"apiVersion": API_VERSION, "kind": kind,
            "metadata": metadata(name, namespace, omit_default=bool(c.integer(0, 1))), "spec": spec}


def entry(c: Chooser, like: dict | None = None) -> dict:
    """One ``supportedModelFormats`` entry (see strategies.entries)."""
    like = like or {}
    exact = bool(like) and bool(c.integer(0, 1))

    def field(*path) -> object:
        value = like
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return ABSENT
            value = value[key]
        return value

    def imitated(path: tuple, drawn):
        """The model's value (ABSENT when it has none) when imitating, else `drawn()`."""
        if exact or (bool(like) and not chance(c, 1, 4)):
            return field(*path)
        return drawn()

    result: dict = {}
    _put(result, "name", optional(c, ENTRY_NAMES))
    for part, names in (("modelFormat", FORMATS), ("modelFramework", FRAMEWORKS)):
        spec_part: dict = {}
        name = imitated((part, "name"), lambda: c.choice(names))  # noqa: B023 (called here)
        spec_part["name"] = name if name not in (ABSENT, "") else names[0]
        _put(spec_part, "version", imitated((part, "version"), lambda: optional(c, VERSIONS)))
        _put(spec_part, "operator", c.choice((ABSENT, "Equal", "GreaterThanOrEqual") if exact else (ABSENT, ABSENT) + OPERATORS))
        _put(spec_part, "weight", optional(c, WEIGHTS))
        result[part] = spec_part
    _put(result, "modelArchitecture", imitated(("modelArchitecture",), lambda: optional(c, ARCHITECTURES)))
    _put(result, "quantization", imitated(("quantization",), lambda: optional(c, QUANTIZATIONS)))
    if not exact and chance(c, 1, 8):
        result["diffusionPipeline"] = diffusion_pipeline(c)
    _put(result, "autoSelect", c.choice((ABSENT, True, True, False)))
    _put(result, "priority", optional(c, PRIORITIES))
    return result


def runtime(c: Chooser, kind: str | None = None, name: str | None = None, namespace: str | None = None,
            like: tuple = (), disabled=None) -> dict:
    """A ServingRuntime or ClusterServingRuntime (see strategies.runtimes)."""
    kind = kind or c.choice(("ServingRuntime", "ClusterServingRuntime"))
    name = name or c.choice(RUNTIME_NAMES)
    namespace = (namespace or c.choice(NAMESPACES)) if kind == "ServingRuntime" else None
    like_specs = list(like) + [None]
    count = c.integer(0 if chance(c, 1, 15) else 1, 3)
    formats = [entry(c, like=c.choice(like_specs)) for _ in range(count)]
    if formats and chance(c, 1, 6):  # W4: a same-group autoSelect: true twin entry
        original = formats[c.integer(0, len(formats) - 1)]
        original["autoSelect"] = True
        original.setdefault("priority", c.choice(PRIORITIES))
        twin = copy.deepcopy(original)
        twin["priority"] = c.choice(PRIORITIES)  # differs from the original 2 times in 3
        formats.append(twin)
    spec: dict = {}
    if formats or not chance(c, 1, 2):
        spec["supportedModelFormats"] = formats
    if disabled is None:
        disabled = True if chance(c, 1, 8) else c.choice((ABSENT, False))
    _put(spec, "disabled", disabled)
    if c.integer(0, 1):
        spec["modelSizeRange"] = size_range(c)
    if chance(c, 1, 4):
        spec["acceleratorRequirements"] = {"acceleratorClasses": sample(c, ACCELERATOR_CLASS_NAMES, max_size=2)}
    for config in ("engineConfig", "decoderConfig"):
        if chance(c, 1, 3):
            spec[config] = {"annotations": {MODE_KEY: c.choice(RUNTIME_MODES)}}
    return {"apiVersion": API_VERSION, "kind": kind,
            "metadata": metadata(name, namespace, omit_default=bool(c.integer(0, 1))), "spec": spec}


def accelerator_class(name: str) -> dict:
    """An AcceleratorClass object (only its name matters, W3)."""
    return {"apiVersion": API_VERSION, "kind": "AcceleratorClass", "metadata": {"name": name}, "spec": {}}


def inference_service(c: Chooser, name: str | None = None, namespace: str | None = None,
                      model_names: tuple = MODEL_NAMES) -> dict:
    """An InferenceService (see strategies.inference_services)."""
    name = name or c.choice(ISVC_NAMES)
    namespace = namespace or c.choice(NAMESPACES)
    meta = metadata(name, namespace, omit_default=bool(c.integer(0, 1)))
    spec: dict = {}
    has_model = not chance(c, 1, 10)
    if has_model:
        model_ref = {"name": c.choice(model_names)}
        _put(model_ref, "kind", optional(c, ("BaseModel", "ClusterBaseModel")))
        spec["model"] = model_ref
    if not has_model or chance(c, 1, 6):
        spec["runtime"] = {"name": c.choice(RUNTIME_NAMES)}
    if chance(c, 1, 6):
        meta["annotations"] = {ACCELERATOR_ANNOTATION: "" if chance(c, 1, 8) else c.choice(ACCELERATOR_CLASS_NAMES)}
    if chance(c, 1, 6):
        spec["acceleratorSelector"] = {"acceleratorClass": c.choice(ACCELERATOR_CLASS_NAMES)}
    _put(spec, "deploymentMode", optional(c, ISVC_MODES))

    def component() -> dict:
        part: dict = {"minReplicas": 1}
        if chance(c, 1, 5):
            part["acceleratorOverride"] = {"acceleratorClass": c.choice(ACCELERATOR_CLASS_NAMES)}
        if chance(c, 1, 4):
            part["annotations"] = {MODE_KEY: c.choice(RUNTIME_MODES + ("",))}
        return part

    if not chance(c, 1, 6):
        spec["engine"] = component()
        if chance(c, 1, 4):
            spec["decoder"] = component()  # I4: decoder only with an engine
    return {"apiVersion": API_VERSION, "kind": "InferenceService", "metadata": meta, "spec": spec}


def document_key(document: dict) -> tuple:
    """(kind, namespace, name) after I1 defaulting; None namespace for cluster-scoped kinds."""
    kind = document["kind"]
    namespace = None
    if kind in ("BaseModel", "ServingRuntime", "InferenceService"):
        namespace = document["metadata"].get("namespace", "default")
    return kind, namespace, document["metadata"]["name"]


def cluster(c: Chooser, max_runtimes: int = 7) -> tuple[list[dict], dict]:
    """A random cluster and an explain query: ``(documents, query)`` (see strategies.clusters)."""
    seen: set = set()
    documents: list[dict] = []

    def add(document: dict) -> None:
        if document_key(document) not in seen:
            seen.add(document_key(document))
            documents.append(document)

    for class_name in sample(c, ACCELERATOR_CLASS_NAMES, min_size=1):
        add(accelerator_class(class_name))
    for _ in range(c.integer(1, 3)):
        add(model(c))
    model_docs = [d for d in documents if d["kind"] in ("BaseModel", "ClusterBaseModel")]

    def visible_model() -> tuple[str, str]:
        """(namespace, model name) where M1 finds the model; rarely a missing model."""
        if chance(c, 1, 12):
            return c.choice(NAMESPACES), c.choice(MODEL_NAMES)
        _, namespace, name = document_key(c.choice(model_docs))
        return namespace or c.choice(NAMESPACES), name

    for _ in range(c.integer(0, 2)):
        namespace, name = visible_model()
        add(inference_service(c, namespace=namespace, model_names=(name,)))

    isvcs = [d for d in documents if d["kind"] == "InferenceService"]
    if isvcs and c.integer(0, 1):
        if chance(c, 1, 12):  # probably a missing ISVC
            query = {"namespace": c.choice(NAMESPACES), "isvc": c.choice(ISVC_NAMES)}
        else:
            _, namespace, name = document_key(c.choice(isvcs))
            query = {"namespace": namespace, "isvc": name}
        target = _get_path(_lookup(documents, query), "spec", "model", "name")
    else:
        namespace, target = visible_model()
        query = {"namespace": namespace, "model": target}

    # Entries imitate the model the query resolves to (M1) more often than the others.
    resolved = sorted((d for d in model_docs if document_key(d)[2] == target
                       and document_key(d)[1] in (None, query["namespace"])),
                      key=lambda d: d["kind"] != "BaseModel")
    like = tuple(d["spec"] for d in resolved[:1] * 4 + model_docs)
    namespaces = (query["namespace"],) * 2 + NAMESPACES
    count = 0 if max_runtimes == 0 or chance(c, 1, 12) else c.integer(1, max_runtimes)
    for _ in range(count):
        add(runtime(c, namespace=c.choice(namespaces), like=like))
    # Ties (O3, O4): clones of a runtime under another kind or name, often with another range.
    drawn = [d for d in documents if d["kind"] in ("ServingRuntime", "ClusterServingRuntime")]
    for _ in range(0 if not drawn or chance(c, 1, 4) else c.integer(1, 3)):
        clone = copy.deepcopy(c.choice(drawn))
        clone["kind"] = c.choice((clone["kind"], clone["kind"], "ServingRuntime", "ClusterServingRuntime"))
        clone["metadata"] = metadata(
            c.choice(RUNTIME_NAMES),
            c.choice(namespaces) if clone["kind"] == "ServingRuntime" else None,
            omit_default=False)
        if c.integer(0, 1):
            clone["spec"]["modelSizeRange"] = size_range(c)
        add(clone)
    return shuffled(c, documents), query


def _lookup(documents: list[dict], query: dict) -> dict | None:
    """The InferenceService a query names, if any."""
    for document in documents:
        if document_key(document) == ("InferenceService", query["namespace"], query["isvc"]):
            return document
    return None


def _get_path(obj, *path):
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def seeded(seed: int, index: int) -> tuple[list[dict], dict]:
    """Case `index` of seed `seed`: the cluster and query that `gen --seed`
    writes and `diff --generate --seed` asks, the same on any machine."""
    return cluster(RandomChooser(f"{seed}:{index}"))
