"""Hypothesis strategies for OME manifests and ``explain`` queries (spec profile v1.3).

Every strategy here produces plain ``dict`` manifests with ``apiVersion:
ome.io/v1beta1``, as ``yaml.safe_load`` would return them, that are valid per
spec I4 (so an implementation must accept them): every entry has
``modelFormat.name`` and ``modelFramework.name``, priorities are >= 1, weights
fit in int64, version and size strings are strings, an InferenceService's
``spec.deploymentMode`` is ``OMENative`` or ``RawDeployment``, a decoder comes
only with an engine, an InferenceService sets ``spec.model`` or
``spec.runtime``, and :func:`clusters` never repeats a (kind, namespace, name).
They contain no unknown fields, so an implementation prints no I11 warning.

The *content* is deliberately drawn from small domains, so that collisions and
ties happen often: a handful of names (the same runtime name in both kinds),
two formats and two frameworks, versions that parse and versions that do not
(``"1.08.0"``, ``""``), suffixed versions (``"4.45.0.dev0"``), every operator
kind, zero / negative / 64-bit weights, equal priorities, one-sided ranges,
unparseable sizes (``"7b"``), accelerator classes that may lack an
AcceleratorClass object (W3 denial), same-name entries with different
priorities (W4 denial), deployment-mode annotations, diffusion pipelines and
disabled flags.

Main entry point::

    from ome_asp.testing.strategies import clusters

    @given(clusters())
    def test_something(cluster):
        documents, query = cluster   # query: {"namespace", "model"} or {"namespace", "isvc"}

The building blocks (:func:`models`, :func:`entries`, :func:`runtimes`,
:func:`inference_services`, :func:`version_strings`, :func:`size_strings`, ...)
are public and composable. Names are plain DNS-style strings.
"""

from __future__ import annotations

import copy

from hypothesis import strategies as st

__all__ = [
    "API_VERSION", "NAMESPACES", "RUNTIME_NAMES", "MODEL_NAMES", "ISVC_NAMES",
    "ACCELERATOR_CLASS_NAMES", "FORMATS", "FRAMEWORKS", "VERSIONS", "OPERATORS", "WEIGHTS",
    "PRIORITIES", "SIZES", "ARCHITECTURES", "QUANTIZATIONS", "RUNTIME_MODES", "ISVC_MODES",
    "ENTRY_NAMES",
    "version_strings", "size_strings", "operators", "weights", "priorities", "auto_selects",
    "size_ranges", "diffusion_pipelines", "models", "entries", "runtimes",
    "accelerator_class", "inference_services", "clusters", "document_key",
]

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


class _Absent:
    """Marker for a field left out of a manifest."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def _optional(strategy: st.SearchStrategy) -> st.SearchStrategy:
    """``strategy`` or ABSENT (shrinks towards ABSENT)."""
    return st.one_of(st.just(ABSENT), strategy)


def _put(mapping: dict, key: str, value) -> None:
    if value is not ABSENT:
        mapping[key] = value


def _chance(draw, numerator: int, denominator: int) -> bool:
    """True with probability numerator/denominator (shrinks towards False)."""
    return draw(st.integers(0, denominator - 1)) >= denominator - numerator


def version_strings() -> st.SearchStrategy[str]:
    """A version string from :data:`VERSIONS` (valid, suffixed, or unparseable)."""
    return st.sampled_from(VERSIONS)


def _model_versions() -> st.SearchStrategy:
    """A model's version: ABSENT or valid, rarely any of :data:`VERSIONS` (so entries can match)."""
    valid = st.sampled_from(tuple(v for v in VERSIONS if v not in ("1.08.0", "")))
    return st.integers(0, 7).flatmap(
        lambda n: version_strings() if n == 7 else _optional(valid))


def size_strings() -> st.SearchStrategy[str]:
    """A size string from :data:`SIZES` (``"7b"`` is unparseable and reads as 0)."""
    return st.sampled_from(SIZES)


def operators() -> st.SearchStrategy[str]:
    """A version operator as written in an entry."""
    return st.sampled_from(OPERATORS)


def weights() -> st.SearchStrategy[int]:
    """A stored weight: negative, zero (scored as 10/5), small, or beyond 32 bits."""
    return st.sampled_from(WEIGHTS)


def priorities() -> st.SearchStrategy[int]:
    """A priority (>= 1, I4)."""
    return st.sampled_from(PRIORITIES)


def auto_selects() -> st.SearchStrategy:
    """An ``autoSelect`` value: ABSENT, True (most often) or False."""
    return st.sampled_from((ABSENT, True, True, False))


@st.composite
def size_ranges(draw) -> dict:
    """A ``modelSizeRange``: both bounds, one bound, or ``{}``."""
    size_range: dict = {}
    for bound in ("min", "max"):
        if _chance(draw, 3, 4):
            size_range[bound] = draw(size_strings())
    return size_range


@st.composite
def _pipeline_components(draw, model_side: bool) -> dict:
    component: dict = {}
    _put(component, "library", draw(_optional(st.sampled_from(
        ("diffusers", "transformers") if model_side else ("diffusers", "transformers", "")))))
    _put(component, "type", draw(_optional(st.sampled_from(("A", "B")))))
    return component


@st.composite
def diffusion_pipelines(draw, model_side: bool = False) -> dict:
    """A ``diffusionPipeline`` for a model (``model_side``) or a runtime entry (may be ``{}``)."""
    pipeline: dict = {}
    _put(pipeline, "className", draw(_optional(st.sampled_from(_PIPELINE_CLASSES))))
    for name in _PIPELINE_COMPONENTS:
        if draw(st.booleans()):
            pipeline[name] = draw(_pipeline_components(model_side))
    extra = draw(st.dictionaries(st.sampled_from(("controlnet", "image_encoder")),
                                 _pipeline_components(model_side), max_size=2))
    if extra or (not model_side and _chance(draw, 1, 4)):
        pipeline["additionalComponents"] = extra
    return pipeline


def _metadata(name: str, namespace: str | None, omit_default: bool) -> dict:
    metadata = {"name": name}
    if namespace is not None and not (omit_default and namespace == "default"):
        metadata["namespace"] = namespace  # I1: "default" may be left implicit
    return metadata


@st.composite
def models(draw, kind: str | None = None, name: str | None = None,
           namespace: str | None = None) -> dict:
    """A BaseModel or ClusterBaseModel.

    Mostly well-formed; sometimes without framework (I7), without size, with an
    unparseable version or size, disabled (ignored by explain), with a diffusion
    pipeline, or without a format name (M4).
    """
    kind = kind or draw(st.sampled_from(("BaseModel", "ClusterBaseModel")))
    name = name or draw(st.sampled_from(MODEL_NAMES))
    if kind == "BaseModel":
        namespace = namespace or draw(st.sampled_from(NAMESPACES))
    else:
        namespace = None
    model_format: dict = {"name": draw(st.sampled_from(FORMATS))}
    _put(model_format, "version", draw(_model_versions()))
    if _chance(draw, 1, 25):  # M4: an empty or missing format name
        if draw(st.booleans()):
            model_format["name"] = ""
        else:
            del model_format["name"]
            model_format.setdefault("version", "1.0.0")
    spec: dict = {"modelFormat": model_format}
    if not _chance(draw, 1, 10):  # I7: sometimes no framework at all
        framework = {"name": draw(st.sampled_from(FRAMEWORKS))}
        _put(framework, "version", draw(_model_versions()))
        spec["modelFramework"] = framework
    _put(spec, "modelArchitecture", draw(_optional(st.sampled_from(ARCHITECTURES))))
    _put(spec, "quantization", draw(_optional(st.sampled_from(QUANTIZATIONS))))
    if _chance(draw, 2, 3):
        spec["modelParameterSize"] = draw(size_strings())
    if _chance(draw, 1, 8):
        spec["diffusionPipeline"] = draw(diffusion_pipelines(model_side=True))
    _put(spec, "disabled", draw(st.sampled_from((ABSENT, ABSENT, ABSENT, False, True))))
    if _chance(draw, 1, 10):  # M5: ignored model operator and weight
        spec["modelFormat"]["operator"] = draw(operators())
        spec["modelFormat"]["weight"] = draw(weights())
    return {
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": _metadata(name, namespace, omit_default=draw(st.booleans())),
        "spec": spec,
    }


def _copy_or_draw(draw, like_value, strategy: st.SearchStrategy, imitate: bool):
    """The model's value (ABSENT when the model has none) when ``imitate``, else a drawn value."""
    if imitate:
        return like_value
    return draw(strategy)


@st.composite
def entries(draw, like: dict | None = None) -> dict:
    """One ``supportedModelFormats`` entry.

    With ``like`` (a model's ``spec``), half of the entries copy the model's
    format, framework, versions, architecture and quantization exactly (with an
    operator that accepts equal versions), and the others copy each of these
    fields with probability 3/4, so that entries often match a model of the
    cluster and near-misses differ in a field or two.
    """
    like = like or {}
    exact = bool(like) and draw(st.booleans())

    def field(*path) -> object:
        value = like
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return ABSENT
            value = value[key]
        return value

    def imitate() -> bool:
        return exact or (bool(like) and not _chance(draw, 1, 4))

    entry: dict = {}
    _put(entry, "name", draw(_optional(st.sampled_from(ENTRY_NAMES))))
    for part, names in (("modelFormat", FORMATS), ("modelFramework", FRAMEWORKS)):
        spec_part: dict = {}
        name = _copy_or_draw(draw, field(part, "name"), st.sampled_from(names), imitate())
        spec_part["name"] = name if name not in (ABSENT, "") else names[0]
        _put(spec_part, "version",
             _copy_or_draw(draw, field(part, "version"), _optional(version_strings()), imitate()))
        _put(spec_part, "operator", draw(st.sampled_from(
            (ABSENT, "Equal", "GreaterThanOrEqual") if exact else (ABSENT, ABSENT) + OPERATORS)))
        _put(spec_part, "weight", draw(_optional(weights())))
        entry[part] = spec_part
    _put(entry, "modelArchitecture", _copy_or_draw(
        draw, field("modelArchitecture"), _optional(st.sampled_from(ARCHITECTURES)), imitate()))
    _put(entry, "quantization", _copy_or_draw(
        draw, field("quantization"), _optional(st.sampled_from(QUANTIZATIONS)), imitate()))
    if not exact and _chance(draw, 1, 8):
        entry["diffusionPipeline"] = draw(diffusion_pipelines())
    _put(entry, "autoSelect", draw(auto_selects()))
    _put(entry, "priority", draw(_optional(priorities())))
    return entry


@st.composite
def runtimes(draw, kind: str | None = None, name: str | None = None,
             namespace: str | None = None, like: tuple = (), disabled=None) -> dict:
    """A ServingRuntime or ClusterServingRuntime.

    ``like``: model specs that entries may imitate (see :func:`entries`).
    ``disabled``: force ``spec.disabled`` (True/False); by default it is drawn
    (ABSENT, False or True). Runtimes sometimes have no entries, a
    ``modelSizeRange``, accelerator classes (possibly unknown: W3), deployment
    modes, or a same-name ``autoSelect: true`` twin entry (a W4 conflict when
    the priorities differ).
    """
    kind = kind or draw(st.sampled_from(("ServingRuntime", "ClusterServingRuntime")))
    name = name or draw(st.sampled_from(RUNTIME_NAMES))
    if kind == "ServingRuntime":
        namespace = namespace or draw(st.sampled_from(NAMESPACES))
    else:
        namespace = None
    like_specs = list(like) + [None]
    formats = draw(st.lists(
        st.sampled_from(like_specs).flatmap(lambda spec: entries(like=spec)),
        min_size=0 if _chance(draw, 1, 15) else 1, max_size=3))
    if formats and _chance(draw, 1, 6):  # W4: a same-group autoSelect: true twin entry
        original = formats[draw(st.integers(0, len(formats) - 1))]
        original["autoSelect"] = True
        original.setdefault("priority", draw(priorities()))
        twin = copy.deepcopy(original)
        twin["priority"] = draw(priorities())  # differs from the original 2 times in 3
        formats.append(twin)
    spec: dict = {}
    if formats or not _chance(draw, 1, 2):
        spec["supportedModelFormats"] = formats
    if disabled is None:
        disabled = True if _chance(draw, 1, 8) else draw(st.sampled_from((ABSENT, False)))
    _put(spec, "disabled", disabled)
    if draw(st.booleans()):
        spec["modelSizeRange"] = draw(size_ranges())
    if _chance(draw, 1, 4):
        spec["acceleratorRequirements"] = {"acceleratorClasses": draw(st.lists(
            st.sampled_from(ACCELERATOR_CLASS_NAMES), unique=True, max_size=2))}
    for config in ("engineConfig", "decoderConfig"):
        if _chance(draw, 1, 3):
            spec[config] = {"annotations": {MODE_KEY: draw(st.sampled_from(RUNTIME_MODES))}}
    return {
        "apiVersion": API_VERSION,
        "kind": kind,
        "metadata": _metadata(name, namespace, omit_default=draw(st.booleans())),
        "spec": spec,
    }


def accelerator_class(name: str) -> dict:
    """An AcceleratorClass object (only its name matters, W3)."""
    return {"apiVersion": API_VERSION, "kind": "AcceleratorClass",
            "metadata": {"name": name}, "spec": {}}


@st.composite
def inference_services(draw, name: str | None = None, namespace: str | None = None,
                       model_names: tuple = MODEL_NAMES) -> dict:
    """An InferenceService.

    Usually names a model (``spec.model``), sometimes also a runtime (E5) or
    only a runtime (M6). May request accelerator classes (annotation, selector,
    engine/decoder overrides; rarely the empty class) and deployment modes
    (``spec.deploymentMode``, engine/decoder annotations, valid or not).
    """
    name = name or draw(st.sampled_from(ISVC_NAMES))
    namespace = namespace or draw(st.sampled_from(NAMESPACES))
    metadata = _metadata(name, namespace, omit_default=draw(st.booleans()))
    spec: dict = {}
    has_model = not _chance(draw, 1, 10)
    if has_model:
        model = {"name": draw(st.sampled_from(model_names))}
        _put(model, "kind", draw(_optional(st.sampled_from(("BaseModel", "ClusterBaseModel")))))
        spec["model"] = model
    if not has_model or _chance(draw, 1, 6):
        spec["runtime"] = {"name": draw(st.sampled_from(RUNTIME_NAMES))}
    classes = st.sampled_from(ACCELERATOR_CLASS_NAMES)
    if _chance(draw, 1, 6):
        metadata["annotations"] = {
            ACCELERATOR_ANNOTATION: "" if _chance(draw, 1, 8) else draw(classes)}
    if _chance(draw, 1, 6):
        spec["acceleratorSelector"] = {"acceleratorClass": draw(classes)}
    _put(spec, "deploymentMode", draw(_optional(st.sampled_from(ISVC_MODES))))

    def component() -> dict:
        part: dict = {"minReplicas": 1}
        if _chance(draw, 1, 5):
            part["acceleratorOverride"] = {"acceleratorClass": draw(classes)}
        if _chance(draw, 1, 4):
            part["annotations"] = {MODE_KEY: draw(st.sampled_from(RUNTIME_MODES + ("",)))}
        return part

    if not _chance(draw, 1, 6):
        spec["engine"] = component()
        if _chance(draw, 1, 4):
            spec["decoder"] = component()  # I4: decoder only with an engine
    return {"apiVersion": API_VERSION, "kind": "InferenceService", "metadata": metadata,
            "spec": spec}


def document_key(document: dict) -> tuple:
    """(kind, namespace, name) after I1 defaulting; None namespace for cluster-scoped kinds."""
    kind = document["kind"]
    namespace = None
    if kind in ("BaseModel", "ServingRuntime", "InferenceService"):
        namespace = document["metadata"].get("namespace", "default")
    return kind, namespace, document["metadata"]["name"]


@st.composite
def clusters(draw, max_runtimes: int = 7):
    """A random cluster and an explain query: ``(documents, query)``.

    ``documents`` is a list of 1+ manifests in random order: some
    AcceleratorClasses (most, not all, of :data:`ACCELERATOR_CLASS_NAMES`),
    1-3 models, 0-2 InferenceServices, and 0-``max_runtimes`` runtimes whose
    entries often imitate the queried model (and ServingRuntimes often live in
    the queried namespace), plus up to 3 clones of a runtime under another name
    or kind, often with another size range, so that scores tie; no (kind,
    namespace, name) repeats. ``query`` is
    ``{"namespace": NS, "model": NAME}`` or ``{"namespace": NS, "isvc":
    NAME}``; it usually names an existing target, sometimes a missing one (an
    E4 error).
    """
    seen: set = set()
    documents: list[dict] = []

    def add(document: dict) -> None:
        if document_key(document) not in seen:
            seen.add(document_key(document))
            documents.append(document)

    for class_name in draw(st.lists(st.sampled_from(ACCELERATOR_CLASS_NAMES), unique=True,
                                    min_size=1, max_size=len(ACCELERATOR_CLASS_NAMES))):
        add(accelerator_class(class_name))
    for model in draw(st.lists(models(), min_size=1, max_size=3)):
        add(model)
    model_docs = [d for d in documents if d["kind"] in ("BaseModel", "ClusterBaseModel")]

    @st.composite
    def visible_model(draw) -> tuple[str, str]:
        """(namespace, model name) where M1 finds the model; rarely a missing model."""
        if _chance(draw, 1, 12):
            return draw(st.sampled_from(NAMESPACES)), draw(st.sampled_from(MODEL_NAMES))
        _, namespace, name = document_key(draw(st.sampled_from(model_docs)))
        return namespace or draw(st.sampled_from(NAMESPACES)), name

    for namespace, name in draw(st.lists(visible_model(), max_size=2)):
        add(draw(inference_services(namespace=namespace, model_names=(name,))))

    isvcs = [d for d in documents if d["kind"] == "InferenceService"]
    if isvcs and draw(st.booleans()):
        if _chance(draw, 1, 12):  # probably a missing ISVC
            query = {"namespace": draw(st.sampled_from(NAMESPACES)),
                     "isvc": draw(st.sampled_from(ISVC_NAMES))}
        else:
            _, namespace, name = document_key(draw(st.sampled_from(isvcs)))
            query = {"namespace": namespace, "isvc": name}
        target = _get_path(_lookup(documents, query), "spec", "model", "name")
    else:
        namespace, target = draw(visible_model())
        query = {"namespace": namespace, "model": target}

    # Entries imitate the model the query resolves to (M1) more often than the others.
    resolved = sorted((d for d in model_docs if document_key(d)[2] == target
                       and document_key(d)[1] in (None, query["namespace"])),
                      key=lambda d: d["kind"] != "BaseModel")
    like = tuple(d["spec"] for d in resolved[:1] * 4 + model_docs)
    namespaces = (query["namespace"],) * 2 + NAMESPACES
    count = 0 if max_runtimes == 0 or _chance(draw, 1, 12) else draw(st.integers(1, max_runtimes))
    for runtime in draw(st.lists(
            st.sampled_from(namespaces).flatmap(lambda ns: runtimes(namespace=ns, like=like)),
            min_size=count, max_size=count)):
        add(runtime)
    # Ties (O3, O4): clones of a runtime under another kind or name, often with another range.
    drawn = [d for d in documents if d["kind"] in ("ServingRuntime", "ClusterServingRuntime")]
    for _ in range(0 if not drawn or _chance(draw, 1, 4) else draw(st.integers(1, 3))):
        clone = copy.deepcopy(draw(st.sampled_from(drawn)))
        clone["kind"] = draw(st.sampled_from(
            (clone["kind"], clone["kind"], "ServingRuntime", "ClusterServingRuntime")))
        clone["metadata"] = _metadata(
            draw(st.sampled_from(RUNTIME_NAMES)),
            draw(st.sampled_from(namespaces)) if clone["kind"] == "ServingRuntime" else None,
            omit_default=False)
        if draw(st.booleans()):
            clone["spec"]["modelSizeRange"] = draw(size_ranges())
        add(clone)
    return draw(st.permutations(documents)), query


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
