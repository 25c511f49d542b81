"""Reference model of OME runtime selection and ``ome-asp explain -o json`` (spec profile v1.3,
profile v1.2.2 of docs/profiles.md section 2, whose explain differences are three: D1, D3, Z3, and
profile code-v0.1.5 of docs/profiles.md section 3 as far as explain reads it: I3's absent weights,
I4's missing entry fields, Q1's VirtualDeployment, no Q4, Q13, Q14, S2's lenient versions, S3
and S5 in int64, Z1's Go float syntax, Z3's panic, Z4, Z5 in float64, O3/O4's Go comparator with
insertion sort over the fetch order (at most 12 runtimes of a kind), O8's name collisions).

This is the independent test oracle: a second, plain-Python reading of
docs/spec.md (and the decisions in docs/decisions.md),
written without looking at the clingo engine. It is deliberately direct: one
function per rule family, each citing its rule ids. Numbers are exact: Python
ints for weights, priorities and scores, ``Fraction`` for sizes and distances
(I8). No floats anywhere.

Entry point: :func:`reference_report`. The rule helpers are public too, so the
tests can check the spec's tables one rule at a time.

Inputs are already-parsed, schema-valid manifests (I4 holds). "Absent" is a
missing key; ``None`` values never occur in such input.
"""

from __future__ import annotations

import datetime
import math
import re
from fractions import Fraction

API_VERSION = "ome-asp/v1alpha1"
PROFILE = "v1.3"
CODE = "code-v0.1.5"
SR = "ServingRuntime"
CSR = "ClusterServingRuntime"
RUNTIME_KINDS = (SR, CSR)
NAMESPACED_KINDS = ("BaseModel", SR, "InferenceService")
DEFAULT_NAMESPACE = "default"  # I1, OQ-22
CHECKS = ("Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8")
MODE_KEY = "ome.io/deploymentMode"
ACCELERATOR_ANNOTATION = "ome.io/accelerator-class"


def _get(obj, *path):
    """The value at ``path`` inside nested mappings, or None when any step is absent."""
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def _entries(runtime: dict) -> list[dict]:
    return _get(runtime, "spec", "supportedModelFormats") or []


# --------------------------------------------------------------------------
# I — inputs, defaults, apply order; W — runtime admission
# --------------------------------------------------------------------------


def _copy(value):
    """A copy of a manifest's nested mappings and lists (copy.deepcopy's memo and
    dispatch made it most of an exhaustive check's time, tests/test_exhaustive.py)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def apply_defaults(document: dict, profile: str = PROFILE) -> dict:
    """A copy of ``document`` as the API server stores it: I1 namespace, I3 defaults
    (code-v0.1.5: objects as written, an absent weight read as 0 and operator as Equal)."""
    doc = _copy(document)
    if doc["kind"] in NAMESPACED_KINDS:
        doc["metadata"].setdefault("namespace", DEFAULT_NAMESPACE)  # I1
    if doc["kind"] in RUNTIME_KINDS and profile != CODE:
        for entry in _entries(doc):
            for part in ("modelFormat", "modelFramework"):
                entry[part].setdefault("weight", 1)  # I3: absent weight -> 1
                entry[part].setdefault("operator", "Equal")  # I3: absent operator -> Equal
            # I3: priority and autoSelect get no stored default.
    return doc


def admission_denial(runtime: dict, accelerator_classes: set[str]) -> str | None:
    """The W-rule denial message for a (defaulted) runtime, or None when admitted."""
    if _get(runtime, "spec", "disabled") is True:
        return None  # W2: disabled runtimes skip W3-W4
    # W3: every listed accelerator class must exist.
    listed = _get(runtime, "spec", "acceleratorRequirements", "acceleratorClasses") or []
    missing = [name for name in listed if name not in accelerator_classes]
    if missing:
        return (
            "unknown accelerator classes referenced in AcceleratorRequirements: ["
            + " ".join(missing)
            + "]"
        )
    # W4: autoSelect: true entries that set priority, grouped by entry name
    # (absent name = ""), may not set two different priorities.
    first_priority: dict[str, int] = {}
    for entry in _entries(runtime):
        if entry.get("autoSelect") is True and "priority" in entry:
            group = entry.get("name", "")
            if first_priority.setdefault(group, entry["priority"]) != entry["priority"]:
                return (
                    f"different priorities assigned for the model format {group} "
                    f"under the {runtime['kind'].lower()} {runtime['metadata']['name']}"
                )
    return None


MULTINODE_MESSAGE = ("invalid configuration: for MultiNode deployment, both leader and worker must be defined "
                     "and worker.size must be greater than 0")
RAW_MESSAGE = "invalid configuration: for RawDeployment, leader and worker must not be defined"


def configuration_denial(runtime: dict) -> str | None:
    """docs/profiles.md 3.5 (code-v0.1.5 only): the runtime configuration check."""
    spec = runtime["spec"]
    size = _get(spec, "workers", "size")
    if size is not None and size <= 0:
        return MULTINODE_MESSAGE
    if "engineConfig" not in spec or "decoderConfig" in spec:
        return None
    explicit = [env.get("value") for container in spec.get("containers") or [] for env in container.get("env") or []
                if env.get("name") == "DEPLOYMENT_MODE"]
    mode = explicit[0] if explicit else "MultiNode" if size is not None and size > 0 else "RawDeployment"
    if mode == "RawDeployment" and size is not None and size > 0:
        return RAW_MESSAGE
    if mode == "MultiNode" and not (size is not None and size > 0):
        return MULTINODE_MESSAGE
    return None


def _go_equal_part(a: dict | None, b: dict | None) -> bool:
    """modelFormat / modelFramework compared as Go structs (docs/profiles.md 3.4):
    both absent, or equal name and weight with no version or operator set
    (a set pointer never compares equal)."""
    if a is None or b is None:
        return a is None and b is None
    pointers = ("version", "operator")
    return (a.get("name") == b.get("name") and a.get("weight", 0) == b.get("weight", 0)
            and not any(key in part for part in (a, b) for key in pointers))


def _clash(e: dict, n: dict) -> bool:
    """W5's pair test of code-v0.1.5 (docs/profiles.md 3.4)."""
    return (e.get("autoSelect") is True and n.get("autoSelect") is True
            and e.get("name", "").lower() == n.get("name", "").lower()
            and e.get("version") == n.get("version")
            and e.get("quantization") == n.get("quantization") and e.get("modelArchitecture") == n.get("modelArchitecture")
            and _go_equal_part(e.get("modelFormat"), n.get("modelFormat"))
            and _go_equal_part(e.get("modelFramework"), n.get("modelFramework"))
            and e.get("modelSizeRange") == n.get("modelSizeRange")
            and "priority" in e and "priority" in n and e["priority"] == n["priority"])


def code_admission_denial(runtime: dict, existing: list[dict], accelerator_classes: set[str]) -> str | None:
    """The W-rule denial of code-v0.1.5 (docs/profiles.md 3.1 W2-W5, 3.4, 3.5):
    configuration, W3, then, when a runtime of its kind exists in its scope
    (`existing`, in canonical order, whatever their own verdicts: D-32), W4
    with the first entry of a group shadowing, and W5 against each of them."""
    if _get(runtime, "spec", "disabled") is True:
        return None  # W2
    denial = configuration_denial(runtime)
    listed = _get(runtime, "spec", "acceleratorRequirements", "acceleratorClasses") or []
    missing = [name for name in listed if name not in accelerator_classes]
    if denial is None and missing:
        denial = "unknown accelerator classes referenced in AcceleratorRequirements: [" + " ".join(missing) + "]"
    if denial is not None or not existing:
        return denial  # the first-runtime skip: no W4, no W5
    stored: dict[str, int | None] = {}
    for entry in _entries(runtime):
        if entry.get("autoSelect") is True:
            group = entry.get("name", "")
            first = stored.setdefault(group, entry.get("priority"))
            if first is not None and "priority" in entry and entry["priority"] != first:
                return (f"different priorities assigned for the model format {group} "
                        f"under the {runtime['kind'].lower()} {runtime['metadata']['name']}")
    name = runtime["metadata"]["name"]
    for other in existing:
        protocols = set(_get(other, "spec", "protocolVersions") or []) & set(_get(runtime, "spec", "protocolVersions") or [])
        if _get(other, "spec", "disabled") is True or other["metadata"]["name"] == name or not protocols:
            continue
        for e in _entries(other):
            for n in _entries(runtime):
                if _clash(e, n):
                    where = (f"servingruntimes {other['metadata']['name']} and {name} in namespace "
                             f"{runtime['metadata']['namespace']}" if runtime["kind"] == SR
                             else f"clusterservingruntimes {other['metadata']['name']} and {name}")
                    return f"same priority assigned for the model format {n.get('name', '')} in the {where}"
    return None


class Cluster:
    """The final cluster state after applying every document (I9, I10)."""

    def __init__(self, documents: list[dict], profile: str = PROFILE):
        # I11: documents of other kinds are skipped.
        docs = [apply_defaults(d, profile) for d in documents if d.get("kind") in (
            "AcceleratorClass", "BaseModel", "ClusterBaseModel", SR, CSR, "InferenceService")]
        # I10: AcceleratorClasses first, then models and ISVCs, then runtimes
        # sorted by (kind, namespace, name), each admitted against what came before.
        self.accelerator_classes = {
            d["metadata"]["name"] for d in docs if d["kind"] == "AcceleratorClass"}
        self.models = {
            (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d
            for d in docs if d["kind"] in ("BaseModel", "ClusterBaseModel")}
        self.isvcs = {
            (d["metadata"]["namespace"], d["metadata"]["name"]): d
            for d in docs if d["kind"] == "InferenceService"}
        self.runtimes: list[dict] = []
        self.denied: list[tuple[dict, str]] = []
        applied: list[dict] = []
        for rt in sorted(
            (d for d in docs if d["kind"] in RUNTIME_KINDS),
            key=lambda d: (d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"]),
        ):
            if profile == CODE:
                scope = [x for x in applied if x["kind"] == rt["kind"]
                         and x["metadata"].get("namespace") == rt["metadata"].get("namespace")]
                message = code_admission_denial(rt, scope, self.accelerator_classes)
            else:
                message = admission_denial(rt, self.accelerator_classes)  # I9
            applied.append(rt)
            if message is None:
                self.runtimes.append(rt)
            else:
                self.denied.append((rt, message))

    def resolve_model(self, namespace: str, name: str) -> dict | None:
        """M1: the BaseModel ``name`` in ``namespace``, else the ClusterBaseModel ``name``."""
        return self.models.get(("BaseModel", namespace, name)) or self.models.get(
            ("ClusterBaseModel", None, name))

    def candidates(self, namespace: str) -> list[dict]:
        """Q1: every ServingRuntime in ``namespace`` and every ClusterServingRuntime."""
        return [
            rt for rt in self.runtimes
            if rt["kind"] == CSR or rt["metadata"]["namespace"] == namespace]


# --------------------------------------------------------------------------
# V — version matching
# --------------------------------------------------------------------------

_NUM = re.compile(r"0|[1-9][0-9]*")


def _num(text: str) -> int | None:
    """V1 ``num``: no leading zeros, fits in 64-bit unsigned."""
    if _NUM.fullmatch(text) and int(text) < 2**64:
        return int(text)
    return None


def parse_version(text: str) -> dict | None:
    """V1: the parsed version, or None when ``text`` does not parse."""
    prefix = text.startswith("v")
    parts = (text[1:] if prefix else text).split(".", 2)
    build: list[str] = []
    pre: list[str] = []
    dev: list[str] = []
    if len(parts) == 3:
        rest = parts[2]
        rest, plus, tail = rest.partition("+")
        if plus:
            build = tail.split(".")
        rest, dash, tail = rest.partition("-")
        if dash:
            pre = tail.split(".")
        rest, dot, tail = rest.partition(".")
        if dot:
            dev = tail.split(".")
        if any(component == "" for component in build + pre + dev):
            return None
        parts[2] = rest
    numbers = [_num(p) for p in parts]
    if None in numbers:
        return None
    return {
        "prefix": prefix,
        "precision": len(numbers),
        "core": tuple(numbers + [0] * (3 - len(numbers))),  # missing part counts as 0 (V5)
        "pre": pre,
        "build": build,
        "dev": dev,
    }


def versions_match(entry_version: str, operator: str, model_version: str) -> bool:
    """V2-V9: does ``entry_version OP model_version`` hold (both versions set)?"""
    entry, model = parse_version(entry_version), parse_version(model_version)
    if entry is None or model is None:
        return False  # V2
    equal = all(entry[k] == model[k] for k in ("core", "pre", "build", "dev"))  # V5
    suffixed = any(v[k] for v in (entry, model) for k in ("pre", "build", "dev"))
    if suffixed or operator == "Equal":
        return equal  # V6, V7
    if entry["precision"] != model["precision"] or entry["prefix"] != model["prefix"]:
        return False  # V8, V9: same precision and prefix required
    if operator == "GreaterThan":
        return entry["core"] > model["core"]  # V3 direction: entry OP model
    if operator == "GreaterThanOrEqual":
        return entry["core"] >= model["core"]
    return equal  # V9: other operators


# --------------------------------------------------------------------------
# Z — sizes
# --------------------------------------------------------------------------

_SIZE = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([MBT])?")
_MULTIPLIER = {None: 1, "M": 10**6, "B": 10**9, "T": 10**12}


def size_count(text: str) -> Fraction:
    """Z1/Z2: the exact parameter count of a size string; unparseable reads as 0."""
    match = _SIZE.fullmatch(text)
    if not match:
        return Fraction(0)  # Z2
    whole, _, fraction = match.group(1).partition(".")
    value = Fraction(int(whole or "0")) + Fraction(int(fraction or "0"), 10 ** len(fraction))
    return value * _MULTIPLIER[match.group(2)]


# code-v0.1.5's Z1 (docs/profiles.md 3.2): Go's strconv.ParseFloat after one stripped suffix
_DIGITS = r"[0-9](?:_?[0-9])*"
_HEX_DIGITS = r"[0-9a-fA-F](?:_?[0-9a-fA-F])*"
_GO_DECIMAL = re.compile(rf"[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?")
_GO_HEX = re.compile(rf"[+-]?0[xX]_?(?:{_HEX_DIGITS}(?:\.(?:{_HEX_DIGITS})?)?|\.{_HEX_DIGITS})[pP][+-]?{_DIGITS}")
_GO_SPECIAL = re.compile(r"[+-]?(?:inf|infinity)|nan", re.IGNORECASE)
_GO_MULTIPLIER = {"T": 1e12, "B": 1e9, "M": 1e6}


def go_size_count(text: str) -> float:
    """Z1/Z2 of code-v0.1.5: strip one trailing T, B or M, ParseFloat the rest
    (float64); any error, an out-of-range value included, reads as 0."""
    multiplier = _GO_MULTIPLIER.get(text[-1:], 1.0)
    rest = text[:-1] if text[-1:] in _GO_MULTIPLIER else text
    if _GO_DECIMAL.fullmatch(rest):
        value = float(rest.replace("_", ""))
    elif _GO_HEX.fullmatch(rest):
        sign, body = (rest[0], rest[1:]) if rest[0] in "+-" else ("", rest)
        try:
            value = float.fromhex(sign + body.replace("_", ""))
        except OverflowError:
            return 0.0  # ParseFloat's range error
    elif _GO_SPECIAL.fullmatch(rest):
        value = float(rest)
    else:
        return 0.0
    if math.isinf(value) and not _GO_SPECIAL.fullmatch(rest):
        return 0.0  # ParseFloat's range error
    return value * multiplier


def size_reason(runtime: dict, model_spec: dict, profile: str = PROFILE) -> str | None:
    """Z3 (Q6): None when the model's size fits the runtime's range, else the Z4 reason."""
    size = model_spec.get("modelParameterSize")
    size_range = _get(runtime, "spec", "modelSizeRange")
    if size is None or size_range is None:
        return None
    if profile == CODE:  # a missing bound panics the query (cluster_report); a NaN size passes
        if not {"min", "max"} <= size_range.keys():
            return None
        s, low, high = go_size_count(size), go_size_count(size_range["min"]), go_size_count(size_range["max"])
        if s < low or s > high:
            return f"model size {size} is outside supported range [{size_range['min']}, {size_range['max']}]"
        return None
    s = size_count(size)
    low, high = size_range.get("min"), size_range.get("max")
    if (low is not None and s < size_count(low)) or (high is not None and s > size_count(high)):
        lower = "(-inf" if low is None else f"[{low}"
        upper = "inf)" if high is None else f"{high}]"
        return f"model size {size} is outside supported range {lower}, {upper}"  # Z4
    return None


def size_distance(runtime: dict, model_spec: dict, profile: str = PROFILE) -> Fraction | float | None:
    """Z5: distance of the runtime's range from the model's size (None: model has no size);
    code-v0.1.5: in float64."""
    size = model_spec.get("modelParameterSize")
    if size is None:
        return None
    if profile == CODE:
        bounds = _get(runtime, "spec", "modelSizeRange") or {}
        s = go_size_count(size)
        return sum((abs(go_size_count(bounds[b]) - s) for b in ("min", "max") if b in bounds), 0.0)
    s = size_count(size)
    size_range = _get(runtime, "spec", "modelSizeRange") or {}
    return sum(
        (abs(size_count(size_range[b]) - s) for b in ("min", "max") if b in size_range),
        Fraction(0))


def decimal_string(value: Fraction) -> str:
    """Exact plain decimal form of a non-negative finite decimal fraction ("7000000000", "2.5")."""
    if value.denominator == 1:
        return str(value.numerator)
    places = 1
    while 10**places % value.denominator:
        places += 1
    digits = str(value.numerator * 10**places // value.denominator).rjust(places + 1, "0")
    return (digits[:-places] + "." + digits[-places:]).rstrip("0")


# --------------------------------------------------------------------------
# Q10-Q14, Q20-Q24, E15, E16 — entry compatibility and its reasons
# --------------------------------------------------------------------------

PIPELINE_COMPONENTS = ("scheduler", "textEncoder", "tokenizer", "transformer", "vae")


def _component_reason(name: str, entry_part: dict, model_part: dict | None) -> str | None:
    """Q22 (Q23 with a key as ``name``): library, then type; empty entry strings are wildcards."""
    if model_part is None:
        return f"component {name} required by runtime but not specified in model"
    for field in ("library", "type"):
        wanted = entry_part.get(field, "")
        if wanted and wanted != model_part.get(field, ""):
            return f"{name} {field} mismatch (model={model_part.get(field, '')}, runtime={wanted})"
    return None


def pipeline_reason(entry: dict, model_spec: dict) -> str | None:
    """Q10, Q20-Q24: the first diffusion-pipeline mismatch of an entry, or None."""
    wanted = entry.get("diffusionPipeline")
    if wanted is None:
        return None  # Q10
    have = model_spec.get("diffusionPipeline")
    if have is None:
        return "diffusion pipeline required by runtime but not specified in model"  # Q20
    if "className" in wanted and have.get("className") != wanted["className"]:  # Q21
        model_class = have.get("className", "<nil>")
        return f"pipeline class mismatch (model={model_class}, runtime={wanted['className']})"
    for name in PIPELINE_COMPONENTS:  # Q22
        if name in wanted:
            reason = _component_reason(name, wanted[name], have.get(name))
            if reason:
                return reason
    extra = wanted.get("additionalComponents") or {}
    if extra:  # Q23
        have_extra = have.get("additionalComponents") or {}
        if not have_extra:
            return "diffusion pipeline missing required additional components"
        for key in sorted(extra):  # OQ-15
            if key not in have_extra:
                return f"diffusion component {key} missing in model"
            reason = _component_reason(key, extra[key], have_extra[key])
            if reason:
                return reason
    return None


def _one_sided_reason(what: str, model_value, entry_value) -> str | None:
    """Q11/Q12: both absent pass, both set must be equal, one-sided fails."""
    if model_value is None and entry_value is None:
        return None
    if model_value is None:
        return f"model has no {what} but runtime requires {entry_value}"
    if entry_value is None:
        return f"model has {what} {model_value} but runtime has no {what} requirement"
    if model_value != entry_value:
        return f"{what} mismatch (model={model_value}, runtime={entry_value})"
    return None


def _version_reason(what: str, model_version, entry_version, operator: str) -> str | None:
    """Q13/Q14 versions: both absent pass, one-sided fails, both set -> V-rules."""
    if model_version is None and entry_version is None:
        return None
    if model_version is None:
        return f"model has no {what} version but runtime requires {entry_version}"
    if entry_version is None:
        return f"model has {what} version but runtime has no version requirement"
    if not versions_match(entry_version, operator, model_version):
        return f"{what} version mismatch (model={model_version}, runtime={entry_version})"
    return None


def format_reason(entry: dict, model_spec: dict) -> str | None:
    """Q13: format name, then format version (code-v0.1.5: an entry without
    modelFormat has no format piece; it is never compatible)."""
    want, have = entry.get("modelFormat"), model_spec["modelFormat"]
    if want is None:
        return None
    if want["name"] != have["name"]:
        return f"format name mismatch (model={have['name']}, runtime={want['name']})"
    return _version_reason("format", have.get("version"), want.get("version"), want.get("operator", "Equal"))


def framework_reason(entry: dict, model_spec: dict) -> str | None:
    """Q14 (and I7): the model needs a framework; then name, then version
    (code-v0.1.5: an entry without modelFramework, Q14 of docs/profiles.md 3.1)."""
    want, have = entry.get("modelFramework"), model_spec.get("modelFramework")
    if want is None:
        return None if have is None else f"model has framework {have['name']} but runtime has no framework requirement"
    if have is None:
        return f"model has no framework but runtime requires {want['name']}"
    if want["name"] != have["name"]:
        return f"framework name mismatch (model={have['name']}, runtime={want['name']})"
    return _version_reason("framework", have.get("version"), want.get("version"), want.get("operator", "Equal"))


def compatible_entry(entry: dict, model_spec: dict) -> bool:
    """Q15: no mismatch (Q13 of code-v0.1.5: and a modelFormat)."""
    return "modelFormat" in entry and not entry_mismatches(entry, model_spec)


def entry_mismatches(entry: dict, model_spec: dict) -> list[str]:
    """Q10-Q14 / E15: every difference of an entry from the model; empty = compatible."""
    pieces = [
        pipeline_reason(entry, model_spec),
        _one_sided_reason("architecture", model_spec.get("modelArchitecture"),
                          entry.get("modelArchitecture")),
        _one_sided_reason("quantization", model_spec.get("quantization"),
                          entry.get("quantization")),
        format_reason(entry, model_spec),
        framework_reason(entry, model_spec),
    ]
    return [p for p in pieces if p is not None]


def model_label(model_spec: dict) -> str:
    """E16: ``mt:`` + format name[:version][:architecture][:quantization][:framework[:version]]."""
    fmt = model_spec["modelFormat"]
    parts = ["mt", fmt["name"]]
    for value in (fmt.get("version"), model_spec.get("modelArchitecture"),
                  model_spec.get("quantization")):
        if value is not None:
            parts.append(value)
    framework = model_spec.get("modelFramework")
    if framework is not None:
        parts.append(framework["name"])
        if framework.get("version") is not None:
            parts.append(framework["version"])
    return ":".join(parts)


def first_compatible_entry(runtime: dict, model_spec: dict) -> dict | None:
    """Q16: the first entry in list order compatible with the model, whatever its autoSelect."""
    for entry in _entries(runtime):
        if compatible_entry(entry, model_spec):
            return entry
    return None


# --------------------------------------------------------------------------
# S — scoring; E9 — explain PRIORITY and WEIGHT
# --------------------------------------------------------------------------


def counts_in_score(entry: dict, model_spec: dict) -> bool:
    """S2/Q17: autoSelect not false, format and framework match (names and versions)."""
    return (entry.get("autoSelect") is not False
            and format_reason(entry, model_spec) is None
            and framework_reason(entry, model_spec) is None)


def counted_weight(weight: int, part: str) -> int:
    """S3: a weight as the score counts it, 0 as 10 (modelFormat) / 5 (modelFramework)."""
    return weight or (10 if part == "modelFormat" else 5)


def entry_score(entry: dict) -> int:
    """S3: (wf' + ww') x priority."""
    wf = counted_weight(entry["modelFormat"]["weight"], "modelFormat")
    ww = counted_weight(entry["modelFramework"]["weight"], "modelFramework")
    return (wf + ww) * entry.get("priority", 1)


def int64(value: int) -> int:
    """Go's int64 arithmetic: wraps."""
    return (value + 2**63) % 2**64 - 2**63


def _both_match(want: dict, have: dict) -> bool:
    """S2 of code-v0.1.5: names equal, versions matching where both are set."""
    if want["name"] != have["name"]:
        return False
    if want.get("version") is None or have.get("version") is None:
        return True
    return versions_match(want["version"], want.get("operator", "Equal"), have["version"])


def code_entry_score(entry: dict, model_spec: dict) -> int:
    """S2, S3, S5 of code-v0.1.5 (CalculateFormatScore): lenient versions, an
    absent or 0 weight counting 10 / 5, any priority, in int64; 0 for an
    entry not counted: autoSelect false, no modelFormat (its framework term is
    not counted either), format or framework not matching, a framework on one
    side only."""
    want_format, want_framework = entry.get("modelFormat"), entry.get("modelFramework")
    have_framework = model_spec.get("modelFramework")
    if entry.get("autoSelect") is False or want_format is None or not _both_match(want_format, model_spec["modelFormat"]):
        return 0
    if (want_framework is None) != (have_framework is None):
        return 0
    if want_framework is not None and not _both_match(want_framework, have_framework):
        return 0
    priority = entry.get("priority", 1)
    score = int64(priority * counted_weight(want_format.get("weight", 0), "modelFormat"))
    if want_framework is not None:
        score = int64(score + int64(priority * counted_weight(want_framework.get("weight", 0), "modelFramework")))
    return score


def runtime_score(runtime: dict, model_spec: dict, profile: str = PROFILE) -> int:
    """S1: max(0, best counted entry score)."""
    if profile == CODE:
        return max([0] + [code_entry_score(e, model_spec) for e in _entries(runtime)])
    return max([0] + [entry_score(e) for e in _entries(runtime) if counts_in_score(e, model_spec)])


def explain_priority_weight(entry: dict, profile: str = PROFILE) -> tuple[int, int]:
    """E9: PRIORITY = P; WEIGHT = P*wf + P*ww over the weights > 0 (no 10/5
    substitution; code-v0.1.5: an absent weight is 0, in int64)."""
    priority = entry.get("priority", 1)
    weights = [entry[part].get("weight", 0) for part in ("modelFormat", "modelFramework") if part in entry]
    if profile == CODE:
        return priority, int64(sum(int64(priority * w) for w in weights if w > 0))
    return priority, sum(priority * w for w in weights if w > 0)


# --------------------------------------------------------------------------
# A — accelerator class; D — deployment mode
# --------------------------------------------------------------------------


def requested_accelerator_classes(isvc: dict) -> set[str]:
    """A1: annotation, acceleratorSelector, engine and decoder overrides, pooled."""
    classes = set()
    annotations = _get(isvc, "metadata", "annotations") or {}
    if ACCELERATOR_ANNOTATION in annotations:
        classes.add(annotations[ACCELERATOR_ANNOTATION])
    for path in (("spec", "acceleratorSelector", "acceleratorClass"),
                 ("spec", "engine", "acceleratorOverride", "acceleratorClass"),
                 ("spec", "decoder", "acceleratorOverride", "acceleratorClass")):
        value = _get(isvc, *path)
        if value is not None:
            classes.add(value)
    return classes


def accelerator_reason(isvc: dict, runtime: dict) -> str | None:
    """A2-A4 (Q3): the runtime must list every requested class."""
    requested = requested_accelerator_classes(isvc)
    listed = set(_get(runtime, "spec", "acceleratorRequirements", "acceleratorClasses") or [])
    if requested <= listed:  # A2: an empty request passes
        return None
    return "runtime does not support the required accelerator class"


VALID_MODES = ("RawDeployment", "OMENative", "MultiNode", "VirtualDeployment")
V1_2_2 = "v1.2.2"


def _mode(value, profile: str = PROFILE) -> str | None:
    """D1: only the four exact values count; anything else is "no mode".
    v1.2.2: OMENative is not a mode yet."""
    if profile == V1_2_2 and value == "OMENative":
        return None
    return value if value in VALID_MODES else None


def requested_modes(isvc: dict, profile: str = PROFILE) -> dict[str, str | None]:
    """D3: a valid component annotation, else spec.deploymentMode (decoder: only if present).
    v1.2.2: spec.deploymentMode does not exist."""
    spec = isvc["spec"]
    typed = None if profile == V1_2_2 else spec.get("deploymentMode")
    engine = _mode(_get(spec, "engine", "annotations", MODE_KEY), profile) or typed
    decoder = None
    if "decoder" in spec:
        decoder = _mode(_get(spec, "decoder", "annotations", MODE_KEY), profile) or typed
    return {"engine": engine, "decoder": decoder}


def deployment_mode_reason(isvc: dict, runtime: dict, profile: str = PROFILE) -> str | None:
    """D2, D4, D5 (Q4): engine first, then decoder; both sides must declare to differ."""
    requested = requested_modes(isvc, profile)
    for component, config in (("engine", "engineConfig"), ("decoder", "decoderConfig")):
        declared = _mode(_get(runtime, "spec", config, "annotations", MODE_KEY), profile)
        wanted = requested[component]
        if declared and wanted and declared != wanted:
            return (f"runtime {component} deployment mode {declared} does not match "
                    f"requested {component} deployment mode {wanted}")
    return None


# --------------------------------------------------------------------------
# Q2-Q8 and E14 — per-runtime checks and reasons
# --------------------------------------------------------------------------

NO_AUTOSELECT_REASON = (
    "supports the model but has no supportedModelFormats[].autoSelect=true entry, so "
    "automatic selection skips it (pin it explicitly via spec.runtime.name instead)")


def check_reasons(runtime: dict, model_spec: dict, isvc: dict | None, profile: str = PROFILE) -> list[tuple[str, str]]:
    """Q2-Q8, each evaluated on its own, with its E14 reason: every failing check, in order."""
    failures: dict[str, str | None] = {}
    failures["Q2"] = "runtime is disabled" if _get(runtime, "spec", "disabled") is True else None
    if isvc is not None:  # A6, D7: skipped for --model
        failures["Q3"] = accelerator_reason(isvc, runtime)
        if profile != CODE:  # code-v0.1.5 has no deployment-mode check
            failures["Q4"] = deployment_mode_reason(isvc, runtime, profile)
    # Q5 / Q15: any compatible entry, whatever its autoSelect.
    compatible = first_compatible_entry(runtime, model_spec)
    if compatible is None:
        label = model_label(model_spec)
        entries = _entries(runtime)
        # Every entry here is incompatible, so each has at least one piece but
        # code-v0.1.5's entry without modelFormat and with nothing else: E15's "unknown mismatch".
        detail = "; ".join(", ".join(entry_mismatches(e, model_spec)) or "unknown mismatch" for e in entries)
        failures["Q5"] = (f"model format '{label}' not in supported formats: "
                          f"{detail or 'no supported formats defined'}")
    failures["Q6"] = size_reason(runtime, model_spec, profile)
    # Q7 / Q18: any entry with autoSelect: true, compatible or not.
    if not any(e.get("autoSelect") is True for e in _entries(runtime)):
        failures["Q7"] = NO_AUTOSELECT_REASON
    # Q8: score > 0; E14 reason 7 vs 8 by the first compatible entry's autoSelect (OQ-21).
    # Reason 7 claims another entry has autoSelect=true, so it is used only when
    # Q7 passed (docs/decisions.md D-2).
    if runtime_score(runtime, model_spec, profile) <= 0:
        if compatible is not None and compatible.get("autoSelect") is not True and "Q7" not in failures:
            fmt = model_spec["modelFormat"]["name"]
            failures["Q8"] = (
                f"matching format {fmt} is not autoSelect-enabled (a different "
                "supportedModelFormats entry on this runtime has autoSelect=true, but not "
                "the one that matches this model)")
        else:
            failures["Q8"] = "auto-select score is 0"
    return [(check, failures[check]) for check in CHECKS if failures.get(check)]


# --------------------------------------------------------------------------
# O — ordering and outcome; E — the explain report
# --------------------------------------------------------------------------


def _order_key(runtime: dict, score: int, distance: Fraction | None):
    """O1-O4: ServingRuntimes first, then score desc, distance asc (sized model), name."""
    return (
        0 if runtime["kind"] == SR else 1,
        -score,
        distance if distance is not None else 0,  # O3 skipped without a size: all equal
        runtime["metadata"]["name"],  # O4: code-point order
    )


def _kind_name_key(runtime: dict):
    """E10 No-row order and O8 item order (OQ-5): ServingRuntimes first, each by name."""
    return (0 if runtime["kind"] == SR else 1, runtime["metadata"]["name"])


class NotCovered(Exception):
    """An input whose code-v0.1.5 answer this model does not compute: Go's
    pdqsort beyond insertion sort (more than 12 runtimes of a kind), a
    comparison of distances whose difference Go converts to an unspecified
    int (NaN, infinite), an infinite distance's text."""


_TIMESTAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)")
_ZERO_TIME = datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc)


def created_ns(runtime: dict) -> int:
    """metadata.creationTimestamp in nanoseconds since Go's zero time (absent: the zero time)."""
    text = _get(runtime, "metadata", "creationTimestamp")
    if text is None:
        return 0
    match = _TIMESTAMP.fullmatch(text)
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    zone = match.group(8)
    offset = datetime.timedelta(0) if zone == "Z" else (1 if zone[0] == "+" else -1) * datetime.timedelta(
        hours=int(zone[1:3]), minutes=int(zone[4:6]))
    instant = datetime.datetime(year, month, day, hour, minute, second, tzinfo=datetime.timezone(offset)) - _ZERO_TIME
    return (instant.days * 86400 + instant.seconds) * 10**9 + int((match.group(7) or "").ljust(9, "0"))


def go_order(scored: list[tuple[dict, int, float | None]]) -> list[tuple[dict, int, float | None]]:
    """O3/O4 of code-v0.1.5 (docs/profiles.md 3.3): per kind, the fetch order
    (newest creationTimestamp first, then name), then insertion sort with
    less(a, b) = cmp(a, b) > 0; ServingRuntimes first."""
    def cmp(a: tuple, b: tuple) -> int:
        (a_rt, a_score, a_distance), (b_rt, b_score, b_distance) = a, b
        if a_score != b_score:
            return a_score - b_score
        if a_distance is not None and a_distance != b_distance:
            difference = b_distance - a_distance
            if not math.isfinite(difference):
                raise NotCovered("a distance difference Go converts to an unspecified int")
            return math.trunc(difference)
        a_name, b_name = a_rt["metadata"]["name"], b_rt["metadata"]["name"]
        return 1 if a_name < b_name else -1 if a_name > b_name else 0

    ordered = []
    for kind in RUNTIME_KINDS:
        items = sorted((t for t in scored if t[0]["kind"] == kind), key=lambda t: (-created_ns(t[0]), t[0]["metadata"]["name"]))
        if len(items) > 12:  # pdqsort: its steps show only where cmp is not a strict total order
            ordered += only_order(items, cmp)
            continue
        for i in range(1, len(items)):
            j = i
            while j > 0 and cmp(items[j], items[j - 1]) > 0:
                items[j], items[j - 1] = items[j - 1], items[j]
                j -= 1
        ordered += items
    return ordered


def only_order(items: list, cmp) -> list:
    """The order every comparison sort gives (less(a, b) = cmp(a, b) > 0) where
    cmp is a strict total order on the items; otherwise Go's pdqsort decides
    (tests/test_gosort_golden.py checks that against Go's own sort.Slice)."""
    ahead = sorted(items, key=lambda a: -sum(cmp(a, b) > 0 for b in items if b is not a))
    if all(cmp(a, b) > 0 for i, a in enumerate(ahead) for b in ahead[i + 1:]):
        return ahead
    raise NotCovered("more than 12 runtimes of a kind not in a strict total order: Go's pdqsort")


def distance_text(distance: Fraction | float) -> str:
    """A distance as the report writes it: its exact decimal (a float64's too), or NaN."""
    if isinstance(distance, float) and math.isnan(distance):
        return "NaN"
    if isinstance(distance, float) and math.isinf(distance):
        raise NotCovered("an infinite distance")
    return decimal_string(Fraction(distance))


def no_runtime_message(model_spec: dict, namespace: str,
                       evaluated: list[tuple[dict, list[tuple[str, str]]]], profile: str = PROFILE) -> str:
    """O8: the no-runtime message, given every candidate with its failed checks."""
    fmt = model_spec["modelFormat"]["name"]
    message = f"no runtime found to support model {fmt} with format {fmt} in namespace {namespace}"
    if evaluated:
        namespaced = sum(1 for rt, _ in evaluated if rt["kind"] == SR)
        message += (f". Checked {len(evaluated)} runtimes ({namespaced} namespace-scoped, "
                    f"{len(evaluated) - namespaced} cluster-scoped)")
    # Listed: candidates whose first failed check is one of Q2-Q6 (not Q7/Q8), OQ-5 order.
    excluded = [(rt["metadata"]["name"], failures[0][1])
                for rt, failures in sorted(evaluated, key=lambda t: _kind_name_key(t[0]))
                if failures and failures[0][0] in ("Q2", "Q3", "Q4", "Q5", "Q6")]
    if profile == CODE:  # one item per name (a Go map), a ClusterServingRuntime's reason over a ServingRuntime's
        excluded = list(dict(excluded).items())
    items = [f"{name} ({reason})" for name, reason in excluded]
    if items:
        message += ". Excluded runtimes: " + "; ".join(items)
    return message


def _row(rt: dict, *, compatible: bool, rank, score, priority, weight, distance,
         failures: list[tuple[str, str]]) -> dict:
    return {
        "runtime": rt["metadata"]["name"],
        "kind": rt["kind"],
        "scope": "Namespaced" if rt["kind"] == SR else "Cluster",  # E8
        "compatible": compatible,
        "rank": rank,
        "score": score,
        "priority": priority,
        "weight": weight,
        "distance": distance,
        "reason": failures[0][1] if failures else None,  # E14: first failed check
        "failedCheck": failures[0][0] if failures else None,
        "reasons": [{"check": check, "message": text} for check, text in failures],
    }


def _error(message: str) -> dict:
    return {"error": message}


def reaches_unsupported_range(runtime: dict, model_spec: dict, failures: list[tuple[str, str]]) -> bool:
    """Z3 on v1.2.2: a runtime that passed Q2-Q5, with a range lacking a bound
    ({} included), for a sized model."""
    size_range = _get(runtime, "spec", "modelSizeRange")
    return ("modelParameterSize" in model_spec and size_range is not None
            and not {"min", "max"} <= size_range.keys()
            and not {check for check, _ in failures} & {"Q2", "Q3", "Q4", "Q5"})


def reference_report(documents: list[dict], namespace: str, model: str | None = None,
                     isvc: str | None = None, profile: str = PROFILE) -> dict:
    """What ``ome-asp explain (--model M | --isvc I) -n NS --profile P -o json``
    prints (P is v1.3 or v1.2.2).

    On an E4 target error: ``{"error": "<message>"}`` (the CLI prints ``error: <message>``);
    on v1.2.2's Z3 outcome ``{"error": "outcome unsupported-input: <runtime>: ..."}``.
    """
    return cluster_report(Cluster(documents, profile), namespace, model, isvc, profile)


def cluster_report(cluster: Cluster, namespace: str, model: str | None = None,
                   isvc: str | None = None, profile: str = PROFILE) -> dict:
    """reference_report of a Cluster already built (benchmarks/run.py: one
    Cluster for every model of a batch, as the engine loads once)."""
    if (model is None) == (isvc is None):
        raise ValueError("exactly one of model or isvc is required")

    # E4 / M1: resolve the target.
    isvc_doc = None
    if isvc is not None:
        isvc_doc = cluster.isvcs.get((namespace, isvc))
        if isvc_doc is None:
            return _error(f'inferenceservices.ome.io "{isvc}" not found')
        if profile == CODE and _get(isvc_doc, "metadata", "annotations", MODE_KEY) == "VirtualDeployment":  # Q1
            return _error(f'InferenceService "{isvc}" is a VirtualDeployment: OME v0.1.5 selects no runtime for it')
        if "model" not in isvc_doc["spec"]:
            return _error(f'InferenceService "{isvc}" has no spec.model; pass --model instead')
        model = isvc_doc["spec"]["model"]["name"]
        query = {"namespace": namespace, "isvc": isvc, "model": model}
    else:
        query = {"namespace": namespace, "model": model}
    model_doc = cluster.resolve_model(namespace, model)
    if model_doc is None:
        return _error(f'clusterbasemodels.ome.io "{model}" not found')
    model_spec = model_doc["spec"]
    if not _get(model_spec, "modelFormat", "name"):  # M4 (explain ignores M3, OQ-17)
        return _error("invalid model specification: modelFormat.name: "
                      "model format name is required")

    # Q1-Q8 per candidate.
    evaluated = [(rt, check_reasons(rt, model_spec, isvc_doc, profile))
                 for rt in cluster.candidates(namespace)]
    if profile == V1_2_2:  # docs/profiles.md 2, Z3: the first such runtime, ServingRuntimes first, by name
        ended = [rt for rt, failures in evaluated if reaches_unsupported_range(rt, model_spec, failures)]
        if ended:
            rt = min(ended, key=_kind_name_key)
            ref = rt["kind"] + (f" {namespace}/" if rt["kind"] == SR else " ") + rt["metadata"]["name"]
            return _error(f"outcome unsupported-input: {ref}: modelSizeRange must set both min and max on this OME version")
    if profile == CODE:  # docs/profiles.md 3.1, Z3: a sized model, a range lacking a bound, Q2, Q3 and Q5 passed
        ended = [rt for rt, failures in evaluated if "modelParameterSize" in model_spec
                 and _get(rt, "spec", "modelSizeRange") is not None
                 and not {"min", "max"} <= _get(rt, "spec", "modelSizeRange").keys()
                 and not {check for check, _ in failures} & {"Q2", "Q3", "Q5"}]
        if ended:
            rt = min(ended, key=_kind_name_key)
            ref = rt["kind"] + (f" {namespace}/" if rt["kind"] == SR else " ") + rt["metadata"]["name"]
            return _error(f"outcome panic: {ref}: modelSizeRange lacks a bound: OME v0.1.5 dereferences the missing "
                          "bound and panics")
    yes = [rt for rt, failures in evaluated if not failures]
    no = [(rt, failures) for rt, failures in evaluated if failures]

    # O1-O4, E10: Yes rows ranked, then No rows by kind and name.
    scored = [(rt, runtime_score(rt, model_spec, profile), size_distance(rt, model_spec, profile)) for rt in yes]
    if profile == CODE:
        scored = go_order(scored)
    else:
        scored.sort(key=lambda t: _order_key(*t))
    rows = []
    for rank, (rt, score, distance) in enumerate(scored, start=1):
        priority, weight = explain_priority_weight(first_compatible_entry(rt, model_spec), profile)
        rows.append(_row(rt, compatible=True, rank=rank, score=score, priority=priority,
                         weight=weight,
                         distance=None if distance is None else distance_text(distance),
                         failures=[]))
    for rt, failures in sorted(no, key=lambda t: _kind_name_key(t[0])):
        rows.append(_row(rt, compatible=False, rank=None, score=None, priority=None,
                         weight=None, distance=None, failures=failures))

    selected = None
    message = None
    if scored:
        winner = scored[0][0]  # O5
        selected = {"kind": winner["kind"], "namespace": winner["metadata"].get("namespace"),
                    "name": winner["metadata"]["name"]}
    else:
        message = no_runtime_message(model_spec, namespace, evaluated, profile)
    return {
        "apiVersion": API_VERSION,
        "kind": "RuntimeExplainReport",
        "profile": profile,
        "query": query,
        "selected": selected,
        "rows": rows,
        "message": message,
    }


# --------------------------------------------------------------------------
# Answering `ome-asp diff` (docs/oracle.md, "Differential testing")
# --------------------------------------------------------------------------


def protocol_answer(request: dict) -> dict:
    """This model's answer to one diff request: selected, ranking (with score
    and distance) and the No rows (``rejected``), or the E4 error."""
    namespace = request.get("namespace", DEFAULT_NAMESPACE)
    report = reference_report(request["manifests"], namespace,
                              model=request.get("model"), isvc=request.get("isvc"),
                              profile=request.get("profile", PROFILE))
    answer = {"id": request.get("id")}
    if "error" in report:
        answer["error"] = report["error"]
        return answer

    def runtime(row: dict) -> dict:
        return {"kind": row["kind"], "namespace": namespace if row["kind"] == SR else None,
                "name": row["runtime"]}

    rows = report["rows"]
    answer["selected"] = report["selected"]
    answer["ranking"] = [{**runtime(r), "score": r["score"], "distance": r["distance"]}
                         for r in rows if r["compatible"]]
    answer["rejected"] = [{**runtime(r), "failedCheck": r["failedCheck"], "reason": r["reason"]}
                          for r in rows if not r["compatible"]]
    return answer
