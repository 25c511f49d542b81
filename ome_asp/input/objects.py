"""The objects ome-asp reads, after loading, validation and API-server defaults (spec I2, I3).

The loader (`ome_asp.input.loader`) turns YAML documents into these; the fact builder
(`ome_asp.solver.facts`) turns these into clingo symbols. They hold exactly the fields
spec I2 lists; `None` always means *absent* (an empty string is *set*, spec 0.2).
Strings are kept exactly as written; sizes and versions are parsed later, by
`ome_asp.input.sizes` and `ome_asp.input.versions`.
"""

from __future__ import annotations

from typing import NamedTuple

from ome_asp.errors import InputError
from ome_asp.input.documents import Document, quote, shown
from ome_asp.input.profiles import V1_3, Profile
from ome_asp.records import field, record

SERVING_RUNTIME = "ServingRuntime"
CLUSTER_SERVING_RUNTIME = "ClusterServingRuntime"
BASE_MODEL = "BaseModel"
CLUSTER_BASE_MODEL = "ClusterBaseModel"
INFERENCE_SERVICE = "InferenceService"
ACCELERATOR_CLASS = "AcceleratorClass"

#: The kinds ome-asp reads (spec I1); every other kind is reported and skipped (I11).
KINDS = (
    BASE_MODEL,
    CLUSTER_BASE_MODEL,
    SERVING_RUNTIME,
    CLUSTER_SERVING_RUNTIME,
    INFERENCE_SERVICE,
    ACCELERATOR_CLASS,
)
#: Kinds that live in a namespace (the others are cluster-scoped).
NAMESPACED_KINDS = (BASE_MODEL, SERVING_RUNTIME, INFERENCE_SERVICE)

#: The named diffusion-pipeline components, in the order Q22 checks them.
PIPELINE_COMPONENTS = ("scheduler", "textEncoder", "tokenizer", "transformer", "vae")


def unrepresentable(text: str) -> str | None:
    """Why the solver cannot hold `text`, or None: clingo strings are UTF-8 C
    strings, so NUL would cut the string short -- another name, a wrong
    answer -- and a lone surrogate (a JSON or YAML "\\ud800" escape, or a
    command-line argument that is not UTF-8) has no UTF-8 form (D-10)."""
    if "\0" in text:
        return "must not contain a NUL character"
    if text.isascii():  # most names: no surrogate, nothing to encode
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode"
    return None


@record(frozen=True)
class Source:
    """Where an object was read: for messages only, never for semantics (I10)."""

    file: str  # the path as the user gave it, or "<stdin>"; or the name of a JSON list of documents
    document: int  # 1-based position of the YAML document in that file (of the document in that list)
    item: int | None = None  # 0-based index inside a `kind: List` document
    # 1-based line where the object starts: a position, not part of its identity.
    line: int | None = field(default=None, compare=False)
    # A document of a JSON list (a serve request's `manifests`) has no lines: its
    # place is its JSON path, `manifests[3]` or `manifests[3].items[0]`.
    json_path: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        if self.json_path:
            where = f"{self.file}[{self.document - 1}]"
            return where if self.item is None else f"{where}.items[{self.item}]"
        file = self.file if self.line is None else f"{self.file}:{self.line}"
        where = f"{file}: document {self.document}"
        return where if self.item is None else f"{where}: items[{self.item}]"


@record(frozen=True)
class Component:
    """A diffusion-pipeline component (`library` and `type`)."""

    library: str | None = None
    type: str | None = None


@record(frozen=True)
class Pipeline:
    """`diffusionPipeline` of an entry or a model (spec 3.4)."""

    class_name: str | None = None
    # Named components that are set (keys from PIPELINE_COMPONENTS).
    components: dict[str, Component] = field(default_factory=dict)
    # `additionalComponents`: None when absent, {} when set but empty.
    additional: dict[str, Component] | None = None


@record(frozen=True)
class FormatRef:
    """`modelFormat` or `modelFramework` of an entry or of a model."""

    name: str | None
    version: str | None = None
    # Entries only (a model's operator and weight are ignored, M5). After I3
    # an entry's operator defaults to "Equal" and its weight to 1.
    operator: str | None = None
    weight: int | None = None
    # Whether `operator` was written (not I3's default): W5 of code-v0.1.5
    # compares Go structs, where a set pointer never compares equal. Not part
    # of the value: every other rule reads an absent operator as Equal.
    operator_written: bool = field(default=False, compare=False)


@record(frozen=True)
class Entry:
    """One element of `spec.supportedModelFormats` (its list index is its position)."""

    name: str | None  # top-level `name`, read by W4 only
    # None only under a profile without schema validation (code-v0.1.5, I4)
    model_format: FormatRef | None
    model_framework: FormatRef | None
    architecture: str | None = None
    quantization: str | None = None
    pipeline: Pipeline | None = None
    auto_select: bool | None = None  # three-valued (I5)
    priority: int | None = None  # absent stays absent (I3)
    version: str | None = None  # top-level `version`, read by code-v0.1.5's W5 only


@record(frozen=True)
class SizeRange:
    """`spec.modelSizeRange`; both bounds may be absent (`{}`)."""

    min: str | None = None
    max: str | None = None


@record(frozen=True)
class Configuration:
    """What code-v0.1.5's runtime configuration check reads (docs/profiles.md 3.5)."""

    workers_size: int | None = None  # spec.workers.size
    engine_config: bool = False  # spec.engineConfig is set
    decoder_config: bool = False  # spec.decoderConfig is set
    mode: str | None = None  # the first DEPLOYMENT_MODE env value of spec.containers


@record(frozen=True)
class Typo:
    """A key the loader warned about as a likely typo (I11): where, as written, the field it
    most likely misspells, and its value. Read only by explain -v (issue 36), never by selection."""

    path: str  # the mapping's field path, e.g. spec.supportedModelFormats[0]
    key: str
    field: str
    value: object


@record(frozen=True)
class Runtime:
    """A ServingRuntime or ClusterServingRuntime."""

    kind: str  # SERVING_RUNTIME or CLUSTER_SERVING_RUNTIME
    namespace: str | None  # None for a ClusterServingRuntime
    name: str
    source: Source
    disabled: bool | None = None
    entries: tuple[Entry, ...] = ()
    size_range: SizeRange | None = None
    # spec.acceleratorRequirements.acceleratorClasses: None when absent.
    accelerator_classes: tuple[str, ...] | None = None
    # Raw values of engineConfig/decoderConfig annotations["ome.io/deploymentMode"].
    engine_mode: str | None = None
    decoder_mode: str | None = None
    # metadata.creationTimestamp, nanoseconds after Go's zero time (input/timestamps.py; None: absent,
    # that zero time): the fetch order of code-v0.1.5's sort (docs/profiles.md 3.3); None in other profiles
    created: int | None = None
    # spec.protocolVersions, read by code-v0.1.5's W5 only
    protocol_versions: tuple[str, ...] | None = None
    configuration: Configuration | None = None  # code-v0.1.5 only
    typos: tuple[Typo, ...] = field(default=(), compare=False, repr=False)  # explain -v's, not selection's


@record(frozen=True)
class Model:
    """A BaseModel or ClusterBaseModel."""

    kind: str  # BASE_MODEL or CLUSTER_BASE_MODEL
    namespace: str | None  # None for a ClusterBaseModel
    name: str
    source: Source
    model_format: FormatRef | None = None  # name may be None or "" (M4)
    model_framework: FormatRef | None = None  # None: the model has no framework (I7)
    architecture: str | None = None
    quantization: str | None = None
    pipeline: Pipeline | None = None
    size: str | None = None  # spec.modelParameterSize as written
    disabled: bool | None = None
    # metadata.labels, read by -l alone (D-283): no selection reads them, nor compare
    labels: dict[str, str] = field(default_factory=dict, compare=False, repr=False)


@record(frozen=True)
class InferenceService:
    """An InferenceService: the fields selection (X1-X8) and the webhook read."""

    namespace: str
    name: str
    source: Source
    model_name: str | None = None  # spec.model.name; None when spec.model is absent
    runtime_name: str | None = None  # spec.runtime.name
    runtime_kind: str | None = None  # spec.runtime.kind after I3 (set when spec.runtime is)
    runtime_auto_sync: bool | None = None  # spec.runtime.autoSync (X6: false records no advisory event)
    # metadata.annotations["ome.io/accelerator-class"] (present key -> value, "" counts).
    accelerator_annotation: str | None = None
    selector_class: str | None = None  # spec.acceleratorSelector.acceleratorClass
    engine_class: str | None = None  # spec.engine.acceleratorOverride.acceleratorClass
    decoder_class: str | None = None  # spec.decoder.acceleratorOverride.acceleratorClass
    has_engine: bool = False
    has_decoder: bool = False
    engine_mode: str | None = None  # spec.engine.annotations["ome.io/deploymentMode"]
    decoder_mode: str | None = None  # spec.decoder.annotations["ome.io/deploymentMode"]
    deployment_mode: str | None = None  # spec.deploymentMode
    # Runner images (O9): spec.engine.runner.image, .leader.runner.image, .worker.runner.image
    engine_runner_image: str | None = None
    engine_leader_image: str | None = None
    engine_worker_image: str | None = None
    # metadata.annotations["ome.io/deploymentMode"] is VirtualDeployment: code-v0.1.5 skips selection (Q1)
    virtual: bool = False
    labels: dict[str, str] = field(default_factory=dict, compare=False, repr=False)  # as a Model's


@record(frozen=True)
class AcceleratorClass:
    """An AcceleratorClass: only its name is read (I2, W3)."""

    name: str
    source: Source


def object_key(obj: Model | Runtime | InferenceService | AcceleratorClass) -> tuple[str, str | None, str]:
    """(kind, namespace, name): what identifies an object in a snapshot."""
    if isinstance(obj, InferenceService):
        return (INFERENCE_SERVICE, obj.namespace, obj.name)
    if isinstance(obj, AcceleratorClass):
        return (ACCELERATOR_CLASS, None, obj.name)
    return (obj.kind, obj.namespace, obj.name)


@record
class Cluster:
    """Everything read from the input, runtimes and InferenceServices in
    canonical order (I10; models and AcceleratorClasses in input order, which
    nothing reads: D-170), plus the warnings the loader produced (I11), in
    input order."""

    models: list[Model] = field(default_factory=list)
    runtimes: list[Runtime] = field(default_factory=list)
    inference_services: list[InferenceService] = field(default_factory=list)
    accelerator_classes: list[AcceleratorClass] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    profile: Profile = V1_3  # the profile the input was read under (docs/profiles.md)
    # Each object's document as read, by (kind, namespace, name): what `compare`
    # reports of fields selection does not read (ignoredChanges).
    contents: dict[tuple[str, str | None, str], dict] = field(default_factory=dict, repr=False, compare=False)
    # Each object's parsed document (input/documents.py's Document: the line of
    # any of its fields), when the loader was asked for lines (compare's causes).
    documents: dict[tuple[str, str | None, str], Document] = field(default_factory=dict, repr=False, compare=False)


# --- what a run asks and what its answers name -------------------------------


@record(frozen=True)
class Query:
    """One question: explain --model NAME or --isvc NAME in a namespace."""

    namespace: str
    model: str | None = None
    isvc: str | None = None

    def __post_init__(self) -> None:
        # Every command and serve request builds its query here: a name clingo
        # cannot carry is the user's error (D-10), never a truncated name and
        # a wrong answer, nor an encoding crash (issue 18).
        for name in ("namespace", "model", "isvc"):
            value = getattr(self, name)
            if value is not None and (why := unrepresentable(value)):
                raise InputError(f"{name}: Invalid value: {quote(value)}: {why}")


class RuntimeRef(NamedTuple):
    """A runtime as reports name it."""

    kind: str  # SERVING_RUNTIME or CLUSTER_SERVING_RUNTIME
    namespace: str | None
    name: str

    @property
    def namespaced(self) -> bool:
        return self.kind == SERVING_RUNTIME

    def __str__(self) -> str:
        """`ServingRuntime ns/name` or `ClusterServingRuntime name`, as in messages; a name
        that is not printable is quoted (D-27), so a message stays one line."""
        if self.namespace is not None and self.namespaced:  # a ServingRuntime always has its namespace
            return f"{self.kind} {shown(self.namespace)}/{shown(self.name)}"
        return f"{self.kind} {shown(self.name)}"
