"""The manifest loader: YAML in, validated and defaulted objects out (spec I1–I5, I10, I11).

`load` reads files, directories and stdin, unwraps `kind: List` documents,
validates every field selection reads the way the API server would (I4, I5),
applies the API-server defaults (I3) and returns a `Cluster` whose runtimes
and InferenceServices are in canonical order (I10). Malformed input raises `InputError` with one message of the form
`<file>:<line>: document <n>: <Kind> <namespace>/<name>: <field path>: <why>`;
suspected typos, documents of other kinds and version or size strings that do
not parse become warnings of the same form (I11), or errors with `strict=True`.
`load_documents` reads documents that are values already (a serve request's
manifests) the same way, each message placed at a JSON path (`manifests[3]`).
"""

from __future__ import annotations

import functools
import io
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable
from typing import IO, Any, NoReturn

from ome_asp.errors import InputError
from ome_asp.input.documents import NO_KEY, Document, decode, documents, quote, shown
from ome_asp.input.limits import MAX_INPUT_BYTES, InputBudget
from ome_asp.input.lookalikes import lookalike
from ome_asp.input.objects import (
    ACCELERATOR_CLASS,
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
    Configuration,
    Entry,
    FormatRef,
    InferenceService,
    Model,
    Pipeline,
    Runtime,
    SizeRange,
    Source,
    Typo,
    unrepresentable,
)
from ome_asp.input.profiles import V1_3, Profile
from ome_asp.input.sizes import is_go_size, is_size
from ome_asp.input.timestamps import parse_rfc3339
from ome_asp.input.versions import parse_version
from ome_asp.patterns import Pattern
from ome_asp.timing import gc_paused

# A cluster repeats the same few version strings thousands of times.
_is_version = functools.lru_cache(maxsize=1024)(lambda text: parse_version(text) is not None)

API_VERSION = "ome.io/v1beta1"
API_GROUP = "ome.io"
DEFAULT_NAMESPACE = "default"  # OQ-22
DEPLOYMENT_MODE_ANNOTATION = "ome.io/deploymentMode"
ACCELERATOR_CLASS_ANNOTATION = "ome.io/accelerator-class"
DEPLOYMENT_MODES = ("OMENative", "RawDeployment")
RUNTIME_KINDS = (SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME)

#: File names read when a directory is given (like `kubectl apply -f DIR`).
EXTENSIONS = (".yaml", ".yml", ".json")
#: The names kustomize reads a kustomization from (-k DIR, input/sources.py; the hint of a kustomization read with -f).
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
STDIN = "-"
KUSTOMIZE_HINT = "; if both files are in a kustomization's directory, read it with -k DIR (kustomize leaves out the files its resources: do not list)"
STDIN_LABEL = "<stdin>"
MANIFESTS = "manifests"  # the JSON path of a serve request's documents (load_documents)

INT64 = (-(2**63), 2**63 - 1)  # weights
PRIORITY = (1, 2**31 - 1)  # int32 with minimum 1 (I4)
INT32 = (-(2**31), 2**31 - 1)  # priority without schema validation (code-v0.1.5 I4, S5)
#: Sizes are computed exactly (I8); Python refuses to convert numbers of more
#: than 4,300 digits to and from text, so longer size strings are refused.
SIZE_DIGITS = 1000

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


#: Names as the API server validates them (D-86): an object's name is a
#: DNS-1123 subdomain, a namespace a DNS-1123 label. No other name exists in a
#: cluster, and none of them can be read as a flag or a shell word.
_DNS_LABEL = Pattern(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = Pattern(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS_SUBDOMAIN_RULE = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                      "and must start and end with an alphanumeric character, at most 253 characters")
DNS_LABEL_RULE = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
                  "and must start and end with an alphanumeric character, at most 63 characters")


def load(
    paths: list[str], stdin: IO[Any] | None = None, strict: bool = False, max_bytes: int = MAX_INPUT_BYTES,
    profile: Profile = V1_3, sources: list[tuple[str, bytes]] = (), overlays: list[str] = (), lines: bool = False,
    allow_empty: bool = False,
) -> Cluster:
    """Read the manifests at `paths` (files, directories, or `-` for `stdin`),
    then `sources` ((label, bytes) that another command wrote: kubectl,
    kustomize; input/sources.py), then `overlays` (files or directories whose
    objects replace those of the same kind, namespace and name read before,
    as `kubectl apply` would; D-244), as `profile`'s OME stores them (I3
    defaults, I4 validation, Z1 syntax).

    Raises `InputError` on the first malformed input, when all inputs together
    exceed `max_bytes`, or, unless `allow_empty`, when they hold no object at
    all. With `strict`, every warning is raised as an `InputError` as well.
    With `lines`, each object's document is kept (Cluster.documents: the line
    of any of its fields, for compare's causes; its nodes cost memory, so
    only on demand).
    """
    reader = _Reader(strict, profile, lines)
    with gc_paused():
        files = _input_files(paths, reader.warn)
        budget = InputBudget(max_bytes)
        warnings: dict[int, list[str]] = {}
        # Read in the canonical order (I10): the first error, and which of two
        # same objects is the duplicate, do not depend on the order of -f
        # (issue 18); warnings are then put back in the order of the input.
        for number in sorted(range(len(files)), key=lambda n: (files[n] != STDIN, files[n])):
            before = len(reader.warnings)
            reader.read(*_input(files[number], stdin, budget))
            warnings[number] = reader.warnings[before:]
            del reader.warnings[before:]
        reader.warnings.extend(w for number in range(len(files)) for w in warnings[number])
        for label, data in sources:  # kubectl's and kustomize's output, after the files
            reader.read(shown(label, cut=False), budget.read(io.BytesIO(data), shown(label, cut=False)))
        reader.overlay = True
        for path in _input_files(list(overlays), reader.warn):
            reader.read(*_input(path, stdin, budget))
    if reader.objects == 0 and not allow_empty:
        names = ", ".join([STDIN_LABEL if path == STDIN else shown(path, cut=False) for path in paths]
                          + [shown(label, cut=False) for label, _ in sources])
        raise InputError(f"no objects in the input: {names}")
    return reader.cluster()


def load_documents(contents: list[Any], profile: Profile = V1_3, label: str = MANIFESTS) -> Cluster:
    """The cluster of documents that are values already (a serve request's
    `manifests`, parsed JSON), read in one pass as `load` reads a YAML stream
    of them: the same checks, defaults and message texts, each message placed
    at the document's JSON path (`manifests[3]: <Kind> <namespace>/<name>:
    <field path>: <why>`) where a text would have a line."""
    reader = _Reader(False, profile)
    reader.read_documents(label, (Document(n, None, content) for n, content in enumerate(contents, 1)))
    if reader.objects == 0:
        raise InputError(f"no objects in the input: {label}")
    return reader.cluster()


def _place(document: Document, label: str, item: int | None = None) -> Source:
    """Where `document`, or item `item` of its `kind: List`, is in the input
    `label`: at a line of its text, or, without a text, at its JSON path."""
    if not document.has_lines:
        return Source(label, document.number, item, json_path=True)
    return Source(label, document.number, item, line=document.line() if item is None else document.item_line(item))


# --- input files -------------------------------------------------------------


def _input_files(paths: list[str], warn: Callable[[str], None]) -> list[str]:
    """Every input: `-` (stdin) and each file, in argument order; a
    directory's files in sorted path order."""
    files = []
    for path in paths:
        files.extend(_files_under(path, warn) if path != STDIN and os.path.isdir(path) else [path])
    return files


def _input(path: str, stdin: IO[Any] | None, budget: InputBudget) -> tuple[str, bytes]:
    """(label, bytes) of one input; the label is the path as given, quoted if
    it would break a message line."""
    if path == STDIN:
        stream = sys.stdin if stdin is None else stdin
        return STDIN_LABEL, budget.read(getattr(stream, "buffer", stream), STDIN_LABEL)
    return shown(path, cut=False), _read_file(path, budget)


def _files_under(directory: str, warn: Callable[[str], None]) -> list[str]:
    def fail(err: OSError) -> NoReturn:
        raise InputError(f"{shown(err.filename, cut=False)}: {err.strerror}")

    named = sorted(
        os.path.join(root, name)
        for root, _, names in os.walk(directory, onerror=fail)
        for name in names
        if name.endswith(EXTENSIONS)
    )
    files = []
    for file in named:
        # A FIFO, socket or device named *.yaml would block or never end:
        # only regular files (or links to them) are manifests (issue 18).
        try:
            regular = stat.S_ISREG(os.stat(file).st_mode)
        except OSError as err:
            raise InputError(f"{shown(file, cut=False)}: {err.strerror}") from None
        if regular:
            files.append(file)
        else:
            warn(f"{shown(file, cut=False)}: not a regular file; skipped")
    return files


def _read_file(path: str, budget: InputBudget) -> bytes:
    try:
        with open(path, "rb") as file:
            return budget.read(file, shown(path, cut=False))
    except OSError as err:
        raise InputError(f"{shown(path, cut=False)}: {err.strerror}") from None


# --- messages ----------------------------------------------------------------


@functools.lru_cache(maxsize=2**12, typed=True)  # every field read joins a path; manifests repeat a few
def _join(path: str, key: Any) -> str:
    """The field path of `key` below `path`: `a.b`, `a[0]` or `a["ome.io/x"]`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return f"{path}.{key}" if path else key
    return f"{path}[{quote(key)}]"


# The Python type a JSON or YAML reader makes of each JSON type a field may have.
_PYTHON_TYPES = {"boolean": bool, "integer": int, "string": str, "array": list, "object": dict}


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


#: The nearest-name search's bounds (issue 38, D-281): difflib's ratio, a
#: quadratic comparison, for at most CLOSE_RATIOS names, those that share the
#: most character pairs with the name looked up; those pairs counted over at
#: most CLOSE_BUDGET characters of names (the rest is not searched).
CLOSE_CUTOFF = 0.6
CLOSE_RATIOS = 16
CLOSE_BUDGET = 2**20


def closest(key: str, known: tuple[str, ...]) -> str | None:
    """The known name `key` most likely misspells (the same but for case, else
    the closest by difflib's ratio, at least 0.6), or None: the one "did you
    mean" of keys, namespaces and names (issue 24). Bounded in work whatever
    the input (D-281): only names whose length allows the ratio, ranked by the
    character pairs they share with `key`, the best CLOSE_RATIOS compared in
    full; with that few names, the answer is difflib.get_close_matches'."""
    import difflib  # only for a warning or an error: most runs have none
    import heapq

    lowered = key.lower()
    same = next((k for k in reversed(known) if k.lower() == lowered), None)  # the last, as a dict of them kept
    if same is not None:
        return same
    # ratio = 2·matches / (len(a) + len(b)) <= 2·min / (len(a) + len(b)), at least 0.6 = 3/5 for
    # the lengths from 3/7 to 7/3 of the key's, in integers (a float bound dropped a name at 0.6 exactly)
    low, high = -(-3 * len(key) // 7), 7 * len(key) // 3
    pairs, budget, ranked = None, CLOSE_BUDGET, []
    for name in known:
        if low <= len(name) <= high:
            budget -= len(name)
            if budget < 0:
                break
            pairs = _pairs(key) if pairs is None else pairs
            ranked.append((-len(pairs & _pairs(name)), name))
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(key)
    best: tuple[float, str] | None = None
    for _, name in heapq.nsmallest(CLOSE_RATIOS, ranked):
        matcher.set_seq1(name)
        if matcher.quick_ratio() >= CLOSE_CUTOFF and (score := (matcher.ratio(), name)) >= (best or (CLOSE_CUTOFF, "")):
            best = score  # get_close_matches' choice: the highest ratio, then the greatest name
    return None if best is None else best[1]


def _pairs(text: str) -> set[str]:
    """The character pairs of `text`: the cheap index of the nearest-name search."""
    return {text[i:i + 2] for i in range(len(text) - 1)} or {text}


def closest_in_reach(name: str, objects: Iterable[Any], namespace: str | None) -> str | None:
    """`closest` among the names of `objects` that `namespace` sees: its own
    and the cluster-scoped ones."""
    return closest(name, tuple(sorted({o.name for o in objects if o.namespace in (None, namespace)})))


def _did_you_mean(key: str, known: tuple[str, ...]) -> str:
    close = closest(key, known)
    return f'; did you mean "{close}"?' if close else ""


# --- documents -----------------------------------------------------------------

class _Reader:
    """Accumulates the objects and warnings of all input files."""

    def __init__(self, strict: bool, profile: Profile = V1_3, lines: bool = False) -> None:
        self.strict = strict
        self.lines = lines
        self.profile = profile
        self.objects = 0  # every object read, of any kind
        self.warnings: list[str] = []
        self.first_seen: dict[tuple[str, str | None, str], Source] = {}
        self.overlay = False  # reading --overlay: an object replaces the one of the same key read before
        self.overlaid: set[tuple[str, str | None, str]] = set()
        self.warned: dict[tuple[str, str | None, str], list[str]] = {}  # the warnings each object's reading gave
        self.contents: dict[tuple[str, str | None, str], dict] = {}  # each object's document (compare)
        self.documents: dict[tuple[str, str | None, str], Document] = {}  # with `lines`: where each one is
        self.models: list[Model] = []
        self.runtimes: list[Runtime] = []
        self.services: list[InferenceService] = []
        self.classes: list[AcceleratorClass] = []

    def warn(self, message: str) -> None:
        if self.strict:
            raise InputError(message)
        self.warnings.append(message)

    def read(self, label: str, data: bytes) -> None:
        self.read_documents(label, documents(label, decode(label, data)))

    def read_documents(self, label: str, stream: Iterable[Document]) -> None:
        for document in stream:
            content = document.content
            if content is None:  # `---` with nothing after it
                continue
            if isinstance(content, dict) and content.get("kind") == "List":
                # `kubectl get -o yaml` output: each item is an object.
                listing = _Object(self, document, _place(document, label), "List")
                items = listing.get(content, "", "items", "array") or []
                for index, item in enumerate(items):
                    self.read_object(document, _place(document, label, index), item)
            else:
                self.read_object(document, _place(document, label), content)

    def read_object(self, document: Document, source: Source, content: Any) -> None:
        self.objects += 1
        warned = len(self.warnings)
        obj = _Object(self, document, source)
        if not isinstance(content, dict):
            obj.fail_object(f"expected an object (a YAML mapping), found {_json_type(content)}")
        kind = obj.get(content, "", "kind", "string")
        if not kind:
            # kustomize does not need apiVersion/kind in a kustomization; -f DIR reads it as a manifest (issue 16)
            kustomization = os.path.basename(source.file) in KUSTOMIZATION_FILES
            obj.fail("kind", "Required value" + ("; this is a kustomization: read its directory with -k DIR"
                                                 if kustomization else ""), content, "kind")
        if kind not in KINDS:
            self.warn(f"{source}: kind {shown(kind)} is not read by ome-asp")
            return
        obj.kind = kind
        metadata = obj.get(content, "", "metadata", "object") or {}
        name = obj.get(metadata, "metadata", "name", "string")
        if not name:
            obj.fail("metadata.name", "Required value", metadata, "name")
        if not _DNS_SUBDOMAIN.fullmatch(name) or len(name) > 253:
            obj.fail("metadata.name", f"Invalid value: {quote(name)}: {DNS_SUBDOMAIN_RULE}", metadata, "name")
        obj.name = name
        if kind in NAMESPACED_KINDS:
            # An empty namespace is unset for the API server too (OQ-22).
            obj.namespace = obj.get(metadata, "metadata", "namespace", "string") or DEFAULT_NAMESPACE
            if not _DNS_LABEL.fullmatch(obj.namespace) or len(obj.namespace) > 63:
                obj.fail("metadata.namespace", f"Invalid value: {quote(obj.namespace)}: {DNS_LABEL_RULE}",
                         metadata, "namespace")
        api_version = obj.get(content, "", "apiVersion", "string")
        if not api_version:
            obj.fail("apiVersion", "Required value", content, "apiVersion")
        if api_version.partition("/")[0] != API_GROUP:
            # Same kind name, another API (KServe has InferenceService and
            # ServingRuntime too): not an OME object, so skipped like one.
            self.warn(f"{source}: kind {kind} of apiVersion {shown(api_version)} is not read by ome-asp")
            return
        if api_version != API_VERSION:
            obj.fail("apiVersion", _unsupported(api_version, (API_VERSION,)), content, "apiVersion")

        key = (kind, obj.namespace, name)
        if key in self.first_seen and (not self.overlay or key in self.overlaid):
            first = self.first_seen[key]
            # a directory of stale copies (OME's kustomize-managed runtime catalog) under -f DIR: issue 16
            hint = KUSTOMIZE_HINT if first.file != source.file else ""
            obj.fail_object(f"duplicate object, first defined at {first}{hint}")
        if key in self.first_seen:
            self._replace(key)
        if self.overlay:
            self.overlaid.add(key)
        self.first_seen[key] = source
        self.contents[key] = content
        if self.lines:
            self.documents[key] = document

        created = _timestamp(obj, metadata)  # every kind's: metav1.Time decodes it (issue 17)
        spec = obj.get(content, "", "spec", "object") or {}
        if kind in (SERVING_RUNTIME, CLUSTER_SERVING_RUNTIME):
            self.runtimes.append(_runtime(obj, metadata, spec, created))
        elif kind in (BASE_MODEL, CLUSTER_BASE_MODEL):
            self.models.append(_model(obj, spec, metadata))
        elif kind == INFERENCE_SERVICE:
            self.services.append(_inference_service(obj, metadata, spec))
        else:
            self.classes.append(AcceleratorClass(name=name, source=source))
        self.warned[key] = self.warnings[warned:]

    def _replace(self, key: tuple[str, str | None, str]) -> None:
        """An --overlay object replaces the one read before: that one, and the
        warnings its reading gave, are dropped."""
        kind, namespace, name = key
        self.models = [m for m in self.models if (m.kind, m.namespace, m.name) != key]
        self.runtimes = [r for r in self.runtimes if (r.kind, r.namespace, r.name) != key]
        self.services = [s for s in self.services if (INFERENCE_SERVICE, s.namespace, s.name) != key]
        self.classes = [c for c in self.classes if (ACCELERATOR_CLASS, None, c.name) != key]
        for warning in self.warned.pop(key, []):
            self.warnings.remove(warning)

    def cluster(self) -> Cluster:
        """Runtimes and InferenceServices in canonical order (I10): the facts number
        entries' signatures and weights in runtime order, and select --all
        answers in InferenceService order. Models and AcceleratorClasses keep
        the input's: every reader looks them up by key or sorts what it shows
        (D-170)."""
        return Cluster(
            models=self.models,
            runtimes=sorted(self.runtimes, key=lambda r: (r.kind, r.namespace or "", r.name)),
            inference_services=sorted(self.services, key=lambda s: (s.namespace, s.name)),
            accelerator_classes=self.classes,
            warnings=fold(self.warnings),
            profile=self.profile,
            contents=self.contents,
            documents=self.documents,
        )


# A warning's place: a JSON path (load_documents), or a text's file, line and
# document. Compiled on first use (re's cache), not by every run's imports (issue 26).
_PLACE = rf"({MANIFESTS}\[\d+\](?:\.items\[\d+\])?|.*?: document \d+(?:: items\[\d+\])?): (.*)"


def fold(warnings: list[str]) -> list[str]:
    """Warnings that say the same of different places (300 x "kind Deployment
    is not read by ome-asp" in a `kubectl get -A` dump) as one line: the first
    place, and how many more (issue 16)."""
    groups: dict[str, list[str]] = {}
    for warning in warnings:
        place = re.fullmatch(_PLACE, warning, re.S)
        groups.setdefault(place.group(2) if place else warning, []).append(warning)
    return [group[0] if len(group) == 1 else f"{group[0]} (and {len(group) - 1} more like it)" for group in groups.values()]


def namespace_warning(cluster: Cluster, namespace: str) -> str | None:
    """A namespace that holds no object while others hold some (`-n ml-taem`):
    most likely a typo, which would answer for cluster-scoped objects alone."""
    held = {o.namespace for o in (*cluster.models, *cluster.runtimes, *cluster.inference_services) if o.namespace}
    if not held or namespace in held:
        return None
    names = sorted(held)
    return (f"namespace {shown(namespace)} holds no BaseModel, ServingRuntime or InferenceService of the input "
            f"(namespaces with some: {', '.join(map(shown, names[:5]))}{', …' if len(names) > 5 else ''})"
            + _did_you_mean(namespace, tuple(names)))


class _Object:
    """One object being read: names it in messages and type-checks its fields.

    Field accessors take the parent mapping, the parent's field path and the
    key. A missing key and a YAML null both mean absent (None). Messages about
    a field carry the line of its key (`parent`, `key`); a missing field, the
    line of its parent.
    """

    def __init__(self, reader: _Reader, document: Document, source: Source, kind: str | None = None) -> None:
        self.reader = reader
        self.document = document
        self.source = source
        self.kind = kind
        self.namespace: str | None = None
        self.name: str | None = None
        self.typos: list[Typo] = []  # the likely typos of its keys (check_keys)

    def where(self, parent: Any = None, key: Any = NO_KEY) -> str:
        """`<file>:<line>: document <n>[: items[i]]: <Kind> <namespace>/<name>`,
        with as much identity as is known; the line of `parent[key]`, or of the
        object itself without a parent."""
        source = self.source
        if parent is not None and not source.json_path:  # a JSON path names the field after it
            source = Source(source.file, source.document, source.item, self.document.line(parent, key))
        if self.kind is None:
            return str(source)
        if self.name is None:
            return f"{source}: {self.kind}"
        if self.namespace is None:
            return f"{source}: {self.kind} {shown(self.name)}"
        return f"{source}: {self.kind} {shown(self.namespace)}/{shown(self.name)}"

    def fail(self, path: str, why: str, parent: Any = None, key: Any = NO_KEY) -> NoReturn:
        raise InputError(f"{self.where(parent, key)}: {path}: {why}")

    def fail_object(self, why: str, parent: Any = None, key: Any = NO_KEY) -> NoReturn:
        raise InputError(f"{self.where(parent, key)}: {why}")

    def warn(self, path: str, why: str, parent: Any, key: Any) -> None:
        self.reader.warn(f"{self.where(parent, key)}: {path}: {why}")

    def check_keys(self, node: dict, path: str, known: tuple[str, ...]) -> None:
        for key in node:
            if str(key) not in known:
                close = closest(str(key), known)
                self.warn(path, f"unknown field {quote(str(key))}" + (f'; did you mean "{close}"?' if close else ""),
                          node, key)
                if close is not None:  # a likely typo: explain -v shows it where the field it misspells decides
                    self.typos.append(Typo(path, str(key), close, node[key]))

    def check(self, value: Any, path: str, expected: str, parent: Any, key: Any) -> Any:
        """`value` (at `parent[key]`) itself, which must be of JSON type `expected` (null is not)."""
        if type(value) is _PYTHON_TYPES[expected] and (expected != "string" or not unrepresentable(value)):
            if expected == "string" and not value.isascii() and (why := lookalike(value)):
                self.warn(path, f"{quote(value)} {why}: it matches only values written with the same characters", parent, key)
            return value  # the common case, decided by the exact type alone (a bool is not an int here)
        actual = _json_type(value)
        if actual != expected:
            self.fail(path, f'Invalid value: "{actual}": {path} in body must be of type {expected}: "{actual}"', parent, key)
        if actual == "string" and (why := unrepresentable(value)):
            self.fail(path, f"Invalid value: {quote(value)}: {why}", parent, key)
        return value

    def get(self, node: dict, path: str, key: str, expected: str) -> Any:
        value = node.get(key)
        if value is None:
            return None
        kind = type(value)
        if kind is _PYTHON_TYPES[expected] and (kind is not str or (value.isascii() and "\0" not in value)):
            # check's common case, decided here without joining the field's
            # path for a message: a field read costs a third (issue 26, serve)
            return value
        return self.check(value, _join(path, key), expected, node, key)

    def require(self, node: dict, path: str, key: str, expected: str) -> Any:
        if node.get(key) is None:  # the line of `key: null`, else of the parent
            self.fail(_join(path, key), "Required value", node, key)
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
        return tuple(self.check(value, _join(path, i), "string", values, i) for i, value in enumerate(values))

    def integer(self, node: dict, path: str, key: str, bounds: tuple[int, int]) -> int | None:
        value = self.get(node, path, key, "integer")
        if value is None or bounds[0] <= value <= bounds[1]:
            return value
        path = _join(path, key)
        if value > bounds[1]:
            self.fail(path, f"Invalid value: {value}: {path} in body should be less than or equal to {bounds[1]}", node, key)
        self.fail(path, f"Invalid value: {value}: {path} in body should be greater than or equal to {bounds[0]}", node, key)

    def version(self, node: dict, path: str, key: str) -> str | None:
        """A version string, kept as written; one that does not parse never
        matches (V2), which is said in a warning."""
        text = self.get(node, path, key, "string")
        if text is not None and not _is_version(text):
            self.warn(_join(path, key), f"{quote(text)} is not a version (V1); it never matches (V2)", node, key)
        return text

    def size(self, node: dict, path: str, key: str) -> str | None:
        """A size string, kept as written; one that does not parse is read as
        0 (Z2), which is said in a warning."""
        text = self.get(node, path, key, "string")
        if text is None:
            return None
        if self.reader.profile.size_syntax == "go":  # float64 values: no digit limit needed
            if not is_go_size(text):
                self.warn(_join(path, key), f"{quote(text)} is not a size for Go's ParseFloat (Z1); read as 0", node, key)
        elif not is_size(text):
            self.warn(_join(path, key), f"{quote(text)} is not a size (Z1); read as 0 (Z2)", node, key)
        elif sum(c.isdigit() for c in text) > SIZE_DIGITS:
            self.fail(_join(path, key), f"Invalid value: {quote(text)}: more than {SIZE_DIGITS} digits", node, key)
        return text


# --- kinds ---------------------------------------------------------------------


def _runtime(obj: _Object, metadata: dict, spec: dict, created: int | None) -> Runtime:
    entries = []
    formats = obj.get(spec, "spec", "supportedModelFormats", "array") or []
    for index, entry in enumerate(formats):
        path = f"spec.supportedModelFormats[{index}]"
        entries.append(_entry(obj, obj.check(entry, path, "object", formats, index), path))

    size_range = obj.get(spec, "spec", "modelSizeRange", "object")
    if size_range is not None:
        obj.check_keys(size_range, "spec.modelSizeRange", SIZE_RANGE_KEYS)
        size_range = SizeRange(
            min=obj.size(size_range, "spec.modelSizeRange", "min"),
            max=obj.size(size_range, "spec.modelSizeRange", "max"),
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
        # read only where an order depends on it (docs/profiles.md 3.3)
        created=created if obj.reader.profile.go_sort else None,
        protocol_versions=obj.strings(spec, "spec", "protocolVersions") if obj.reader.profile.cross_runtime_check else None,
        configuration=_configuration(obj, spec) if obj.reader.profile.webhook_quirks else None,
        typos=tuple(obj.typos),
    )


def _configuration(obj: _Object, spec: dict) -> Configuration:
    """What the v0.1.5 webhook's configuration check reads (docs/profiles.md 3.5)."""
    mode = None
    containers = obj.get(spec, "spec", "containers", "array") or []
    for index, container in enumerate(containers):
        path = f"spec.containers[{index}]"
        container = obj.check(container, path, "object", containers, index)
        env = obj.get(container, path, "env", "array") or []
        for position, variable in enumerate(env):
            variable = obj.check(variable, f"{path}.env[{position}]", "object", env, position)
            if mode is None and variable.get("name") == "DEPLOYMENT_MODE":
                mode = obj.get(variable, f"{path}.env[{position}]", "value", "string")
    workers = obj.get(spec, "spec", "workers", "object") or {}
    return Configuration(
        workers_size=obj.integer(workers, "spec.workers", "size", INT32),
        engine_config=obj.get(spec, "spec", "engineConfig", "object") is not None,
        decoder_config=obj.get(spec, "spec", "decoderConfig", "object") is not None,
        mode=mode,
    )


def _timestamp(obj: _Object, metadata: dict) -> int | None:
    """metadata.creationTimestamp as metav1.Time decodes it (timestamps.py): the
    instant in nanoseconds, None when absent or null (Go's zero time); any
    other form than RFC 3339 is an input error under every profile, as it is
    a decode error in OME (issue 17)."""
    text = obj.get(metadata, "metadata", "creationTimestamp", "string")
    if text is None:
        return None
    instant = parse_rfc3339(text)
    if instant is None:
        obj.fail("metadata.creationTimestamp", f"Invalid value: {quote(text)}: not an RFC 3339 time", metadata, "creationTimestamp")
    return instant


def _entry(obj: _Object, entry: dict, path: str) -> Entry:
    obj.check_keys(entry, path, ENTRY_KEYS)
    name = obj.get(entry, path, "name", "string")
    model_format = _entry_format(obj, entry, path, "modelFormat")
    model_framework = _entry_format(obj, entry, path, "modelFramework")
    architecture = obj.get(entry, path, "modelArchitecture", "string")
    quantization = obj.get(entry, path, "quantization", "string")
    pipeline = _pipeline(obj, entry, path)
    auto_select = obj.get(entry, path, "autoSelect", "boolean")
    priority = obj.integer(entry, path, "priority", PRIORITY if obj.reader.profile.schema_validation else INT32)
    return Entry(
        name=name,
        model_format=model_format,
        model_framework=model_framework,
        architecture=architecture,
        quantization=quantization,
        pipeline=pipeline,
        auto_select=auto_select,
        priority=priority,
        version=obj.get(entry, path, "version", "string") if obj.reader.profile.cross_runtime_check else None,
    )


def _entry_format(obj: _Object, entry: dict, path: str, key: str) -> FormatRef | None:
    """An entry's `modelFormat` or `modelFramework`, with I3 defaults: required
    with schema validation (I4); without it (code-v0.1.5) it may be absent
    (None) and an absent name is Go's zero value "". An absent weight is the
    profile's (1 by API defaulting, 0 as Go's zero value); an absent operator
    is read as Equal either way."""
    schema = obj.reader.profile.schema_validation
    node = (obj.require if schema else obj.get)(entry, path, key, "object")
    if node is None:
        return None
    path = _join(path, key)
    obj.check_keys(node, path, FORMAT_KEYS)
    name = obj.require(node, path, "name", "string") if schema else obj.get(node, path, "name", "string") or ""
    version = obj.version(node, path, "version")
    operator = obj.get(node, path, "operator", "string")
    weight = obj.integer(node, path, "weight", INT64)
    return FormatRef(
        name=name,
        version=version,
        operator="Equal" if operator is None else operator,
        weight=obj.reader.profile.absent_weight if weight is None else weight,
        operator_written=operator is not None,
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
        if node.get(key) is not None:
            components[key] = _component(obj, node, key, _join(path, key))

    additional = obj.get(node, path, "additionalComponents", "object")
    if additional is not None:
        path = _join(path, "additionalComponents")
        for key in additional:
            obj.check(key, f"{path} keys", "string", additional, key)
        additional = {key: _component(obj, additional, key, _join(path, key)) for key in additional}
    return Pipeline(class_name=class_name, components=components, additional=additional)


def _component(obj: _Object, parent: dict, key: str, path: str) -> Component:
    # A null value is a zero component, as Go decodes a map value.
    node = {} if parent[key] is None else obj.check(parent[key], path, "object", parent, key)
    obj.check_keys(node, path, COMPONENT_KEYS)
    return Component(
        library=obj.get(node, path, "library", "string"),
        type=obj.get(node, path, "type", "string"),
    )


def _labels(obj: _Object, metadata: dict) -> dict[str, str]:
    """metadata.labels (map[string]string), for -l."""
    labels = obj.get(metadata, "metadata", "labels", "object") or {}
    for key, value in labels.items():
        obj.check(key, "metadata.labels keys", "string", labels, key)
        obj.check(value, _join("metadata.labels", key), "string", labels, key)
    return labels


def _model(obj: _Object, spec: dict, metadata: dict) -> Model:
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
        size=obj.size(spec, "spec", "modelParameterSize"),
        disabled=obj.get(spec, "spec", "disabled", "boolean"),
        labels=_labels(obj, metadata),
    )


def _model_format(obj: _Object, spec: dict, key: str, name_required: bool) -> FormatRef | None:
    """A model's `modelFormat` or `modelFramework`: only name and version (M5)."""
    node = obj.get(spec, "spec", key, "object")
    if node is None:
        return None
    path = f"spec.{key}"
    obj.check_keys(node, path, FORMAT_KEYS)
    if name_required and obj.reader.profile.schema_validation:
        name = obj.require(node, path, "name", "string")
    else:  # without schema validation an absent framework name is Go's ""
        name = obj.get(node, path, "name", "string")
        name = "" if name is None and name_required else name
    return FormatRef(
        name=name,
        version=obj.version(node, path, "version"),
    )


def _inference_service(obj: _Object, metadata: dict, spec: dict) -> InferenceService:
    model = obj.get(spec, "spec", "model", "object")
    schema = obj.reader.profile.schema_validation
    model_name = None
    if model is not None and schema:
        model_name = obj.require(model, "spec.model", "name", "string")
    elif model is not None:  # without schema validation an absent name is Go's "" (I4)
        model_name = obj.get(model, "spec.model", "name", "string") or ""

    runtime = obj.get(spec, "spec", "runtime", "object")
    runtime_name = runtime_kind = auto_sync = None
    if runtime is not None:
        runtime_name = obj.get(runtime, "spec.runtime", "name", "string")
        auto_sync = obj.get(runtime, "spec.runtime", "autoSync", "boolean")
        runtime_kind = obj.get(runtime, "spec.runtime", "kind", "string")
        if runtime_kind is None:
            runtime_kind = CLUSTER_SERVING_RUNTIME  # I3
        elif runtime_kind not in RUNTIME_KINDS and schema:  # OQ-24
            obj.fail("spec.runtime.kind", _unsupported(runtime_kind, RUNTIME_KINDS), runtime, "kind")
        elif runtime_kind not in RUNTIME_KINDS:  # code-v0.1.5: any string loads, and X2 ignores the kind
            runtime_kind = None

    engine = obj.get(spec, "spec", "engine", "object")
    decoder = obj.get(spec, "spec", "decoder", "object")
    profile = obj.reader.profile
    deployment_mode = None
    if profile.mode_filter != "full" and "deploymentMode" in spec:
        # D3 (v1.2.2), I4 (code-v0.1.5): the field does not exist before v1.3
        obj.warn("spec", f'unknown field "deploymentMode" (no such field in OME {profile.name}); ignored', spec, "deploymentMode")
    else:
        deployment_mode = obj.get(spec, "spec", "deploymentMode", "string")
    if deployment_mode is not None and deployment_mode not in DEPLOYMENT_MODES:
        obj.fail("spec.deploymentMode", _unsupported(deployment_mode, DEPLOYMENT_MODES), spec, "deploymentMode")
    # The webhook's own messages name their fields already.
    if decoder is not None and engine is None:
        obj.fail_object("decoder cannot be specified without engine", spec, "decoder")
    if model is None and profile.model_rule == "required":  # M6 on v1.2.2
        obj.fail("spec.model", "Required value", spec)
    if model is None and runtime is None and profile.model_rule == "model-or-runtime":
        obj.fail_object("at least one of spec.model or spec.runtime must be set", spec)

    return InferenceService(
        namespace=obj.namespace,
        name=obj.name,
        source=obj.source,
        model_name=model_name,
        runtime_name=runtime_name,
        runtime_kind=runtime_kind,
        runtime_auto_sync=auto_sync,
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
        virtual=profile.virtual_deployment_skip
        and obj.dig(metadata, "metadata", ("annotations", DEPLOYMENT_MODE_ANNOTATION)) == "VirtualDeployment",
        labels=_labels(obj, metadata),
    )


def _unsupported(value: str, supported: tuple[str, ...]) -> str:
    return f"Unsupported value: {quote(value)}: supported values: {', '.join(map(quote, supported))}"
