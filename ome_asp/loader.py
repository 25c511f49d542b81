"""The manifest loader: YAML in, validated and defaulted objects out (spec I1–I5, I10, I11).

`load` reads files, directories and stdin, unwraps `kind: List` documents,
validates every field selection reads the way the API server would (I4, I5),
applies the API-server defaults (I3) and returns a `Cluster` in canonical
order (I10). Malformed input raises `InputError` with one message of the form
`<file>: document <n>: <Kind> <namespace>/<name>: <field path>: <why>`;
suspected typos and documents of other kinds become warnings (I11), or
errors with `strict=True`.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
from collections.abc import Iterator
from typing import IO, Any, NoReturn

import yaml

from ome_asp.errors import InputError
from ome_asp.objects import (
    BASE_MODEL,
    CLUSTER_BASE_MODEL,
    CLUSTER_SERVING_RUNTIME,
    INFERENCE_SERVICE,
    KINDS,
    NAMESPACED_KINDS,
    PIPELINE_COMPONENTS,
    SERVING_RUNTIME,
    AcceleratorClass,
    Cluster,
    Component,
    Entry,
    FormatRef,
    InferenceService,
    Model,
    Pipeline,
    Runtime,
    SizeRange,
    Source,
)

API_VERSION = "ome.io/v1beta1"
API_GROUP = "ome.io"
DEFAULT_NAMESPACE = "default"  # OQ-22
DEPLOYMENT_MODE_ANNOTATION = "ome.io/deploymentMode"
ACCELERATOR_CLASS_ANNOTATION = "ome.io/accelerator-class"
DEPLOYMENT_MODES = ("OMENative", "RawDeployment")
RUNTIME_KINDS = (SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME)

#: File names read when a directory is given (like `kubectl apply -f DIR`).
EXTENSIONS = (".yaml", ".yml", ".json")
STDIN = "-"
STDIN_LABEL = "<stdin>"

INT64 = (-(2**63), 2**63 - 1)  # weights
PRIORITY = (1, 2**31 - 1)  # int32 with minimum 1 (I4)

# Keys of the parts selection reads (I11). An unknown key in one of them is
# most likely a typo that silently changes the answer, so it is reported; the
# tables include the keys the OME v1beta1 API defines there even when
# selection ignores them (I2, A5), so those are not reported.
ENTRY_KEYS = (
    "name",
    "modelFormat",
    "modelFramework",
    "modelArchitecture",
    "quantization",
    "diffusionPipeline",
    "autoSelect",
    "priority",
    # ignored on entries (I2)
    "version",
    "modelType",
    "acceleratorConfig",
    "modelCacheProviders",
)
FORMAT_KEYS = ("name", "version", "operator", "weight")  # a model ignores the last two (M5)
PIPELINE_KEYS = ("className", *PIPELINE_COMPONENTS, "additionalComponents")
COMPONENT_KEYS = ("library", "type")
SIZE_RANGE_KEYS = ("min", "max")
ACCELERATOR_REQUIREMENT_KEYS = (
    "acceleratorClasses",
    # ignored (A5)
    "minMemory",
    "minComputePerformanceTFLOPS",
    "minArchitectureVersion",
    "requiredFeatures",
    "preferredPrecisions",
)

_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeLoader):  # type: ignore[misc, valid-type]
    """The safe loader, minus two YAML 1.1 implicit types Kubernetes does not
    have: an unquoted `2024-01-01` stays a string (sigs.k8s.io/yaml keeps
    timestamps as strings) and so does a bare `=`."""


_Loader.yaml_implicit_resolvers = {
    first: [
        (tag, pattern)
        for tag, pattern in resolvers
        if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value")
    ]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}


def load(paths: list[str], stdin: IO[Any] | None = None, strict: bool = False) -> Cluster:
    """Read the manifests at `paths` (files, directories, or `-` for `stdin`).

    Raises `InputError` on the first malformed input. With `strict`, every
    warning is raised as an `InputError` as well.
    """
    reader = _Reader(strict)
    for label, data in _inputs(paths, stdin):
        reader.read(label, data)
    return reader.cluster()


# --- input files -------------------------------------------------------------


def _inputs(paths: list[str], stdin: IO[Any] | None) -> Iterator[tuple[str, bytes]]:
    """(label, bytes) of every input file, in argument order; a directory's
    files in sorted path order (I10: only document numbering depends on it)."""
    for path in paths:
        if path == STDIN:
            yield STDIN_LABEL, _read_stream(sys.stdin if stdin is None else stdin)
        elif os.path.isdir(path):
            for file in _files_under(path):
                yield file, _read_file(file)
        else:
            yield path, _read_file(path)


def _files_under(directory: str) -> list[str]:
    def fail(err: OSError) -> NoReturn:
        raise InputError(f"{err.filename}: {err.strerror}")

    return sorted(
        os.path.join(root, name)
        for root, _, names in os.walk(directory, onerror=fail)
        for name in names
        if name.endswith(EXTENSIONS)
    )


def _read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as err:
        raise InputError(f"{path}: {err.strerror}") from None


def _read_stream(stream: IO[Any]) -> bytes:
    data = getattr(stream, "buffer", stream).read()
    # A text stream was decoded already; surrogates it holds (undecodable
    # input) are passed through so the UTF-8 check below reports them.
    return data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")


def _decode(label: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{label}: not valid UTF-8: byte 0x{data[err.start]:02x} at offset {err.start}") from None


def _documents(label: str, text: str) -> Iterator[tuple[int, Any]]:
    """(1-based position, content) of each YAML document; empty ones are None."""
    try:
        yield from enumerate(yaml.load_all(text, Loader=_Loader), start=1)
    except yaml.YAMLError as err:
        raise InputError(f"{label}: not valid YAML: {_yaml_problem(err, text)}") from None


def _yaml_problem(err: yaml.YAMLError, text: str) -> str:
    mark = getattr(err, "problem_mark", None)
    if mark is not None:
        problem = getattr(err, "problem", None) or getattr(err, "context", None)
        return f"{problem} (line {mark.line + 1}, column {mark.column + 1})"
    if isinstance(err, yaml.reader.ReaderError) and isinstance(err.character, int):
        # The reader stops at the first unacceptable character, so its first
        # occurrence is the culprit (the C and Python loaders count
        # `position` differently: bytes versus characters).
        at = text.find(chr(err.character))
        line = text.count("\n", 0, at) + 1
        column = at - text.rfind("\n", 0, at)
        return f"unacceptable character #x{err.character:04x}: {err.reason} (line {line}, column {column})"
    return str(err).splitlines()[0]


# --- messages ----------------------------------------------------------------


def _quote(text: str) -> str:
    """A double-quoted string for a message line; control characters, NUL
    and lone surrogates come out escaped."""
    return json.dumps(text, ensure_ascii=False).encode("utf-8", "backslashreplace").decode()


def _join(path: str, key: Any) -> str:
    """The field path of `key` below `path`: `a.b`, `a[0]` or `a["ome.io/x"]`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}" if path else key
    return f"{path}[{_quote(key)}]"


def _json_type(value: Any) -> str:
    """The JSON type name Kubernetes uses in schema errors."""
    if value is None:
        return "null"
    if isinstance(value, bool):  # before int: a bool is an int in Python
        return "boolean"
    for python_type, name in ((int, "integer"), (float, "number"), (str, "string"), (list, "array"), (dict, "object")):
        if isinstance(value, python_type):
            return name
    return type(value).__name__  # a YAML-only type such as !!binary or !!set


def _unrepresentable(text: str) -> str | None:
    """Why the solver cannot hold `text` (clingo strings are C strings), or None."""
    if "\0" in text:
        return "must not contain a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a YAML "\ud800" escape
        return "must be valid Unicode"
    return None


def _did_you_mean(key: str, known: tuple[str, ...]) -> str:
    by_case = {k.lower(): k for k in known}
    close = by_case.get(key.lower()) or next(iter(difflib.get_close_matches(key, known, n=1)), None)
    return f'; did you mean "{close}"?' if close else ""


# --- documents -----------------------------------------------------------------


class _Reader:
    """Accumulates the objects and warnings of all input files."""

    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.warnings: list[str] = []
        self.first_seen: dict[tuple[str, str | None, str], Source] = {}
        self.models: list[Model] = []
        self.runtimes: list[Runtime] = []
        self.services: list[InferenceService] = []
        self.classes: list[AcceleratorClass] = []

    def warn(self, message: str) -> None:
        if self.strict:
            raise InputError(message)
        self.warnings.append(message)

    def read(self, label: str, data: bytes) -> None:
        for number, content in _documents(label, _decode(label, data)):
            if content is None:  # `---` with nothing after it
                continue
            if isinstance(content, dict) and content.get("kind") == "List":
                # `kubectl get -o yaml` output: each item is an object.
                document = _Object(self, Source(label, number), "List")
                items = document.get(content, "", "items", "array") or []
                for index, item in enumerate(items):
                    self.read_object(Source(label, number, index), item)
            else:
                self.read_object(Source(label, number), content)

    def read_object(self, source: Source, content: Any) -> None:
        obj = _Object(self, source)
        if not isinstance(content, dict):
            obj.fail_object(f"expected an object (a YAML mapping), found {_json_type(content)}")
        kind = obj.get(content, "", "kind", "string")
        if not kind:
            obj.fail("kind", "Required value")
        if kind not in KINDS:
            self.warn(f"{source}: kind {kind} is not read by ome-asp")
            return
        obj.kind = kind
        metadata = obj.get(content, "", "metadata", "object") or {}
        name = obj.get(metadata, "metadata", "name", "string")
        if not name:
            obj.fail("metadata.name", "Required value")
        obj.name = name
        if kind in NAMESPACED_KINDS:
            # An empty namespace is unset for the API server too (OQ-22).
            obj.namespace = obj.get(metadata, "metadata", "namespace", "string") or DEFAULT_NAMESPACE
        api_version = obj.get(content, "", "apiVersion", "string")
        if not api_version:
            obj.fail("apiVersion", "Required value")
        if api_version.partition("/")[0] != API_GROUP:
            # Same kind name, another API (KServe has InferenceService and
            # ServingRuntime too): not an OME object, so skipped like one.
            self.warn(f"{source}: kind {kind} of apiVersion {api_version} is not read by ome-asp")
            return
        if api_version != API_VERSION:
            obj.fail("apiVersion", _unsupported(api_version, (API_VERSION,)))

        key = (kind, obj.namespace, name)
        if key in self.first_seen:
            obj.fail_object(f"duplicate object, first defined at {self.first_seen[key]}")
        self.first_seen[key] = source

        spec = obj.get(content, "", "spec", "object") or {}
        if kind in (SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME):
            self.runtimes.append(_runtime(obj, spec))
        elif kind in (BASE_MODEL, CLUSTER_BASE_MODEL):
            self.models.append(_model(obj, spec))
        elif kind == INFERENCE_SERVICE:
            self.services.append(_inference_service(obj, metadata, spec))
        else:
            self.classes.append(AcceleratorClass(name=name, source=source))

    def cluster(self) -> Cluster:
        """The objects in canonical order (I10), so no answer depends on input order."""
        return Cluster(
            models=sorted(self.models, key=lambda m: (m.kind, m.namespace or "", m.name)),
            runtimes=sorted(self.runtimes, key=lambda r: (r.kind, r.namespace or "", r.name)),
            inference_services=sorted(self.services, key=lambda s: (s.namespace, s.name)),
            accelerator_classes=sorted(self.classes, key=lambda c: c.name),
            warnings=self.warnings,
        )


class _Object:
    """One object being read: names it in messages and type-checks its fields.

    Field accessors take the parent mapping, the parent's field path and the
    key. A missing key and a YAML null both mean absent (None).
    """

    def __init__(self, reader: _Reader, source: Source, kind: str | None = None) -> None:
        self.reader = reader
        self.source = source
        self.kind = kind
        self.namespace: str | None = None
        self.name: str | None = None

    def where(self) -> str:
        """`<file>: document <n>[: items[i]]: <Kind> <namespace>/<name>`, with as much identity as is known."""
        if self.kind is None:
            return str(self.source)
        if self.name is None:
            return f"{self.source}: {self.kind}"
        if self.namespace is None:
            return f"{self.source}: {self.kind} {self.name}"
        return f"{self.source}: {self.kind} {self.namespace}/{self.name}"

    def fail(self, path: str, why: str) -> NoReturn:
        raise InputError(f"{self.where()}: {path}: {why}")

    def fail_object(self, why: str) -> NoReturn:
        raise InputError(f"{self.where()}: {why}")

    def check_keys(self, node: dict, path: str, known: tuple[str, ...]) -> None:
        for key in node:
            key = str(key)
            if key not in known:
                self.reader.warn(f"{self.where()}: {path}: unknown field {_quote(key)}{_did_you_mean(key, known)}")

    def check(self, value: Any, path: str, expected: str) -> Any:
        """`value` itself, which must be of JSON type `expected` (null is not)."""
        actual = _json_type(value)
        if actual != expected:
            self.fail(path, f'Invalid value: "{actual}": {path} in body must be of type {expected}: "{actual}"')
        if actual == "string" and (why := _unrepresentable(value)):
            self.fail(path, f"Invalid value: {_quote(value)}: {why}")
        return value

    def get(self, node: dict, path: str, key: str, expected: str) -> Any:
        value = node.get(key)
        return None if value is None else self.check(value, _join(path, key), expected)

    def require(self, node: dict, path: str, key: str, expected: str) -> Any:
        if node.get(key) is None:
            self.fail(_join(path, key), "Required value")
        return self.get(node, path, key, expected)

    def dig(self, node: dict, path: str, keys: tuple[str, ...]) -> str | None:
        """The string at `node[k1][k2]...`; None when any step is absent. Each
        step before the last must be an object."""
        for key in keys[:-1]:
            node = self.get(node, path, key, "object")
            if node is None:
                return None
            path = _join(path, key)
        return self.get(node, path, keys[-1], "string")

    def strings(self, node: dict, path: str, key: str) -> tuple[str, ...] | None:
        values = self.get(node, path, key, "array")
        if values is None:
            return None
        path = _join(path, key)
        return tuple(self.check(value, _join(path, i), "string") for i, value in enumerate(values))

    def integer(self, node: dict, path: str, key: str, bounds: tuple[int, int]) -> int | None:
        value = self.get(node, path, key, "integer")
        path = _join(path, key)
        if value is not None and value > bounds[1]:
            self.fail(path, f"Invalid value: {value}: {path} in body should be less than or equal to {bounds[1]}")
        if value is not None and value < bounds[0]:
            self.fail(path, f"Invalid value: {value}: {path} in body should be greater than or equal to {bounds[0]}")
        return value


# --- kinds ---------------------------------------------------------------------


def _runtime(obj: _Object, spec: dict) -> Runtime:
    entries = []
    for index, entry in enumerate(obj.get(spec, "spec", "supportedModelFormats", "array") or []):
        path = f"spec.supportedModelFormats[{index}]"
        entries.append(_entry(obj, obj.check(entry, path, "object"), path))

    size_range = obj.get(spec, "spec", "modelSizeRange", "object")
    if size_range is not None:
        obj.check_keys(size_range, "spec.modelSizeRange", SIZE_RANGE_KEYS)
        size_range = SizeRange(
            min=obj.get(size_range, "spec.modelSizeRange", "min", "string"),
            max=obj.get(size_range, "spec.modelSizeRange", "max", "string"),
        )

    requirements = obj.get(spec, "spec", "acceleratorRequirements", "object")
    classes = None
    if requirements is not None:
        obj.check_keys(requirements, "spec.acceleratorRequirements", ACCELERATOR_REQUIREMENT_KEYS)
        classes = obj.strings(requirements, "spec.acceleratorRequirements", "acceleratorClasses")

    return Runtime(
        kind=obj.kind,
        namespace=obj.namespace,
        name=obj.name,
        source=obj.source,
        disabled=obj.get(spec, "spec", "disabled", "boolean"),
        entries=tuple(entries),
        size_range=size_range,
        accelerator_classes=classes,
        engine_mode=obj.dig(spec, "spec", ("engineConfig", "annotations", DEPLOYMENT_MODE_ANNOTATION)),
        decoder_mode=obj.dig(spec, "spec", ("decoderConfig", "annotations", DEPLOYMENT_MODE_ANNOTATION)),
    )


def _entry(obj: _Object, entry: dict, path: str) -> Entry:
    obj.check_keys(entry, path, ENTRY_KEYS)
    name = obj.get(entry, path, "name", "string")
    model_format = _entry_format(obj, entry, path, "modelFormat")
    model_framework = _entry_format(obj, entry, path, "modelFramework")
    architecture = obj.get(entry, path, "modelArchitecture", "string")
    quantization = obj.get(entry, path, "quantization", "string")
    pipeline = _pipeline(obj, entry, path)
    auto_select = obj.get(entry, path, "autoSelect", "boolean")
    priority = obj.integer(entry, path, "priority", PRIORITY)
    return Entry(
        name=name,
        model_format=model_format,
        model_framework=model_framework,
        architecture=architecture,
        quantization=quantization,
        pipeline=pipeline,
        auto_select=auto_select,
        priority=priority,
    )


def _entry_format(obj: _Object, entry: dict, path: str, key: str) -> FormatRef:
    """An entry's `modelFormat` or `modelFramework`: required, with I3 defaults."""
    node = obj.require(entry, path, key, "object")
    path = _join(path, key)
    obj.check_keys(node, path, FORMAT_KEYS)
    name = obj.require(node, path, "name", "string")
    version = obj.get(node, path, "version", "string")
    operator = obj.get(node, path, "operator", "string")
    weight = obj.integer(node, path, "weight", INT64)
    return FormatRef(
        name=name,
        version=version,
        operator="Equal" if operator is None else operator,
        weight=1 if weight is None else weight,
    )


def _pipeline(obj: _Object, parent: dict, path: str) -> Pipeline | None:
    """`diffusionPipeline` below `parent` (an entry or a model's spec)."""
    node = obj.get(parent, path, "diffusionPipeline", "object")
    if node is None:
        return None
    path = _join(path, "diffusionPipeline")
    obj.check_keys(node, path, PIPELINE_KEYS)
    class_name = obj.get(node, path, "className", "string")
    components = {}
    for key in PIPELINE_COMPONENTS:
        component = obj.get(node, path, key, "object")
        if component is not None:
            components[key] = _component(obj, component, _join(path, key))

    additional = obj.get(node, path, "additionalComponents", "object")
    if additional is not None:
        path = _join(path, "additionalComponents")
        for key in additional:
            obj.check(key, f"{path} keys", "string")
        # A null value is a zero component, as Go decodes a map value.
        additional = {
            key: _component(obj, {} if value is None else value, _join(path, key)) for key, value in additional.items()
        }
    return Pipeline(class_name=class_name, components=components, additional=additional)


def _component(obj: _Object, node: Any, path: str) -> Component:
    obj.check(node, path, "object")
    obj.check_keys(node, path, COMPONENT_KEYS)
    return Component(
        library=obj.get(node, path, "library", "string"),
        type=obj.get(node, path, "type", "string"),
    )


def _model(obj: _Object, spec: dict) -> Model:
    return Model(
        kind=obj.kind,
        namespace=obj.namespace,
        name=obj.name,
        source=obj.source,
        # A missing or empty format name is reported at query time (M4).
        model_format=_model_format(obj, spec, "modelFormat", name_required=False),
        model_framework=_model_format(obj, spec, "modelFramework", name_required=True),
        architecture=obj.get(spec, "spec", "modelArchitecture", "string"),
        quantization=obj.get(spec, "spec", "quantization", "string"),
        pipeline=_pipeline(obj, spec, "spec"),
        size=obj.get(spec, "spec", "modelParameterSize", "string"),
        disabled=obj.get(spec, "spec", "disabled", "boolean"),
    )


def _model_format(obj: _Object, spec: dict, key: str, name_required: bool) -> FormatRef | None:
    """A model's `modelFormat` or `modelFramework`: only name and version (M5)."""
    node = obj.get(spec, "spec", key, "object")
    if node is None:
        return None
    path = f"spec.{key}"
    obj.check_keys(node, path, FORMAT_KEYS)
    read_name = obj.require if name_required else obj.get
    return FormatRef(
        name=read_name(node, path, "name", "string"),
        version=obj.get(node, path, "version", "string"),
    )


def _inference_service(obj: _Object, metadata: dict, spec: dict) -> InferenceService:
    model = obj.get(spec, "spec", "model", "object")
    model_name = None if model is None else obj.require(model, "spec.model", "name", "string")

    runtime = obj.get(spec, "spec", "runtime", "object")
    runtime_name = runtime_kind = None
    if runtime is not None:
        runtime_name = obj.get(runtime, "spec.runtime", "name", "string")
        runtime_kind = obj.get(runtime, "spec.runtime", "kind", "string")
        if runtime_kind is None:
            runtime_kind = CLUSTER_SERVING_RUNTIME  # I3
        elif runtime_kind not in RUNTIME_KINDS:  # OQ-24
            obj.fail("spec.runtime.kind", _unsupported(runtime_kind, RUNTIME_KINDS))

    engine = obj.get(spec, "spec", "engine", "object")
    decoder = obj.get(spec, "spec", "decoder", "object")
    deployment_mode = obj.get(spec, "spec", "deploymentMode", "string")
    if deployment_mode is not None and deployment_mode not in DEPLOYMENT_MODES:
        obj.fail("spec.deploymentMode", _unsupported(deployment_mode, DEPLOYMENT_MODES))
    # The webhook's own messages name their fields already.
    if decoder is not None and engine is None:
        obj.fail_object("decoder cannot be specified without engine")
    if model is None and runtime is None:
        obj.fail_object("at least one of spec.model or spec.runtime must be set")

    return InferenceService(
        namespace=obj.namespace,
        name=obj.name,
        source=obj.source,
        model_name=model_name,
        runtime_name=runtime_name,
        runtime_kind=runtime_kind,
        accelerator_annotation=obj.dig(metadata, "metadata", ("annotations", ACCELERATOR_CLASS_ANNOTATION)),
        selector_class=obj.dig(spec, "spec", ("acceleratorSelector", "acceleratorClass")),
        engine_class=obj.dig(spec, "spec", ("engine", "acceleratorOverride", "acceleratorClass")),
        decoder_class=obj.dig(spec, "spec", ("decoder", "acceleratorOverride", "acceleratorClass")),
        has_engine=engine is not None,
        has_decoder=decoder is not None,
        engine_mode=obj.dig(spec, "spec", ("engine", "annotations", DEPLOYMENT_MODE_ANNOTATION)),
        decoder_mode=obj.dig(spec, "spec", ("decoder", "annotations", DEPLOYMENT_MODE_ANNOTATION)),
        deployment_mode=deployment_mode,
        engine_runner_image=obj.dig(spec, "spec", ("engine", "runner", "image")),
        engine_leader_image=obj.dig(spec, "spec", ("engine", "leader", "runner", "image")),
        engine_worker_image=obj.dig(spec, "spec", ("engine", "worker", "runner", "image")),
    )


def _unsupported(value: str, supported: tuple[str, ...]) -> str:
    return f"Unsupported value: {_quote(value)}: supported values: {', '.join(map(_quote, supported))}"
