"""The changes between two snapshots of a cluster, field by field (`ome-asp compare`).

Objects are matched by kind, namespace and name. Two versions of an object
are compared field by field over what the loader keeps of it (spec I2's
fields, read as the profile reads them), each change named by its YAML path
as I2 spells it. A change can be applied alone to the earlier snapshot: that
is how compare tries subsets of the changes and verifies them.

Entries of `spec.supportedModelFormats` are compared by position, as the
facts index them; when the number of entries differs, the list is one change.
A *facet* is the part of an object whose facts depend on several of its
fields together (an entry: its signature and weights; a size range: its
width): changes of one facet are tried in every combination
(`ome_asp.solver.facts.build_variant_facts`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

from ome_asp import records
from ome_asp.input.documents import Document
from ome_asp.input.objects import AcceleratorClass, Cluster, InferenceService, Model, Runtime, object_key

ObjectKey = tuple  # (kind, namespace, name), as the loader's Cluster.contents

# The YAML path of each field the loader keeps (spec I2); fields absent here
# are not compared (identity, source).
_ANNOTATION = '.annotations["ome.io/deploymentMode"]'
_PATHS = {
    Runtime: {
        "disabled": "spec.disabled", "entries": "spec.supportedModelFormats", "size_range": "spec.modelSizeRange",
        "accelerator_classes": "spec.acceleratorRequirements.acceleratorClasses",
        "engine_mode": "spec.engineConfig" + _ANNOTATION, "decoder_mode": "spec.decoderConfig" + _ANNOTATION,
        "created": "metadata.creationTimestamp", "protocol_versions": "spec.protocolVersions",
        "configuration": "spec",
    },
    Model: {
        "model_format": "spec.modelFormat", "model_framework": "spec.modelFramework",
        "architecture": "spec.modelArchitecture", "quantization": "spec.quantization",
        "pipeline": "spec.diffusionPipeline", "size": "spec.modelParameterSize", "disabled": "spec.disabled",
    },
    InferenceService: {
        "model_name": "spec.model.name", "runtime_name": "spec.runtime.name", "runtime_kind": "spec.runtime.kind",
        "runtime_auto_sync": "spec.runtime.autoSync",
        "accelerator_annotation": 'metadata.annotations["ome.io/accelerator-class"]',
        "selector_class": "spec.acceleratorSelector.acceleratorClass",
        "engine_class": "spec.engine.acceleratorOverride.acceleratorClass",
        "decoder_class": "spec.decoder.acceleratorOverride.acceleratorClass",
        "has_engine": "spec.engine", "has_decoder": "spec.decoder",
        "engine_mode": "spec.engine" + _ANNOTATION, "decoder_mode": "spec.decoder" + _ANNOTATION,
        "deployment_mode": "spec.deploymentMode", "engine_runner_image": "spec.engine.runner.image",
        "engine_leader_image": "spec.engine.leader.runner.image",
        "engine_worker_image": "spec.engine.worker.runner.image",
        "virtual": 'metadata.annotations["ome.io/deploymentMode"]',
    },
    AcceleratorClass: {},
}
_ENTRY_PATHS = {
    "name": "name", "model_format": "modelFormat", "model_framework": "modelFramework",
    "architecture": "modelArchitecture", "quantization": "quantization", "pipeline": "diffusionPipeline",
    "auto_select": "autoSelect", "priority": "priority", "version": "version",
}
_SUB_PATHS = {  # fields of a nested value compared one by one when both sides have it
    "model_format": {"name": "name", "version": "version", "operator": "operator", "weight": "weight"},
    "model_framework": {"name": "name", "version": "version", "operator": "operator", "weight": "weight"},
    "size_range": {"min": "min", "max": "max"},
    "configuration": {"workers_size": "workers.size", "engine_config": "engineConfig", "decoder_config": "decoderConfig",
                      "mode": 'containers[].env["DEPLOYMENT_MODE"]'},
}
EXISTS = ("exists",)  # the facet of an object created or deleted


@dataclass(frozen=True)
class Place:
    """Where a change is written: the file and line in the later snapshot, or
    in the earlier one for what was removed (the value is only there)."""

    side: str  # "before" or "after"
    file: str  # as the loader names the file (Source.file)
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Change:
    """One field of one object that differs between the snapshots."""

    object: ObjectKey
    path: str  # the YAML path (I2), e.g. spec.supportedModelFormats[0].priority; "" for the whole object
    old: Any  # the value before, as loaded (None: absent)
    new: Any  # the value after
    attrs: tuple = ()  # where it lives in the loaded object: attribute names and entry positions
    # The part of the object whose facts it shares with other changes: an
    # entry (entries, i), a field with its nested fields (size_range), or
    # EXISTS, the object itself.
    facet: tuple = EXISTS
    # The values as the manifests write them at `path` (before, after), None
    # where a side does not write it: what is shown, in the user's names and
    # values, never the loader's (issue 25). None where the path cannot be
    # read back from the documents: the loaded value is shown.
    written: tuple | None = dataclasses.field(default=None, compare=False)
    # A list whose entries were added or removed is one change (the facts
    # index entries by position); its entries' own changes, each entry
    # matched by name, by format and framework, else by position: (path,
    # from, to, Place or None) as written.
    parts: tuple = dataclasses.field(default=(), compare=False)
    place: Place | None = dataclasses.field(default=None, compare=False)  # None: the input has no lines

    def values(self) -> tuple[tuple[Any, bool], tuple[Any, bool]]:
        """(value, is a default) of each side: as written; where a side does
        not write the field, the default the loader applied (I3), if any."""
        if self.written is None:
            return (plain(self.old), False), (plain(self.new), False)
        return tuple((plain(loaded), True) if raw is None and loaded is not None and not records.is_record(loaded)
                     else (raw, False) for raw, loaded in zip(self.written, (self.old, self.new)))  # type: ignore[return-value]

    def describe(self) -> str:
        """One line, as steer describes an edit; a list's matched entries after it."""
        if not self.path:
            return f"{object_text(self.object)}: {'created' if self.old is None else 'deleted'}"
        return f"{object_text(self.object)}: " + "; ".join(self.lines())

    def lines(self) -> list[str]:
        """What changed, a line per field: a list's entries one by one."""
        if self.parts:
            return [field_text(path, old, new) for path, old, new, _ in self.parts]
        (old, old_default), (new, new_default) = self.values()
        return [field_text(self.path, old, new, old_default, new_default)]

    def json(self) -> dict:
        """As steer writes an edit: {object, path, from, to}; `defaults`: the
        sides whose value is a default, not written; `entries`: a list's
        changes entry by entry."""
        kind, namespace, name = self.object
        (old, old_default), (new, new_default) = self.values()
        out = {"object": {"kind": kind, "namespace": namespace, "name": name}, "path": self.path, "from": old, "to": new}
        defaults = [side for side, is_default in (("from", old_default), ("to", new_default)) if is_default]
        if defaults:
            out["defaults"] = defaults
        out.update(place_json(self.place))
        if self.parts:
            out["entries"] = [{"path": path, "from": a, "to": b, **place_json(place)} for path, a, b, place in self.parts]
        return out


def place_json(place: Place | None) -> dict:
    return {} if place is None else {"file": place.file, "line": place.line, "side": place.side}


def field_text(path: str, old: Any, new: Any, old_default: bool = False, new_default: bool = False) -> str:
    if new is None:
        return f"remove {path} (was {_inner(old, old_default)})"
    if old is None and not old_default and isinstance(new, (dict, list)):
        return f"add {path} ({_inner(new)})"
    return f"{path}: {shown(old, old_default)} → {shown(new, new_default)}"


def _inner(value: Any, default: bool = False) -> str:
    """A value inside parentheses: a mapping's fields without their braces."""
    text = shown(value, default)
    return text[1:-1] if isinstance(value, dict) and not default and text.startswith("{") else text


def object_text(key: ObjectKey) -> str:
    kind, namespace, name = key
    return f"{kind} {namespace}/{name}" if namespace is not None else f"{kind} {name}"


def shown(value: Any, default: bool = False) -> str:
    """A value for a line of text: a scalar as written, a mapping or list as
    its fields' paths and values (`{modelFormat.name: onnx, priority: 1}`),
    never a JSON document (issue 37)."""
    if default:
        return f"{shown(value)} (default)"
    if value is None:
        return "absent"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    value = plain(value)
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    if isinstance(value, list) and not any(isinstance(item, (dict, list)) for item in value):
        return "[" + ", ".join(shown(item) for item in value) + "]"
    leaves: list = []
    _flat("", value, leaves)
    return "{" + ", ".join(f"{path}: {shown(leaf)}" for path, leaf in leaves) + "}"


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _step(key: Any) -> str:
    """A mapping key as a step of a YAML path: `.name`, or `["a key"]`."""
    return f".{key}" if isinstance(key, str) and _IDENTIFIER.fullmatch(key) else f"[{json.dumps(key)}]"


def _flat(path: str, value: Any, out: list) -> None:
    """(path, scalar) of each leaf of a mapping or list, in its order."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            _flat((path + _step(key)).lstrip("."), item, out)
    elif isinstance(value, list) and value and any(isinstance(item, (dict, list)) for item in value):
        for i, item in enumerate(value):
            _flat(f"{path}[{i}]", item, out)
    else:
        out.append((path, value))


def plain(value: Any) -> Any:
    """A loaded value as JSON: records as objects of their set fields."""
    if records.is_record(value):
        return {f.name: plain(getattr(value, f.name)) for f in records.fields(value)
                if f.compare and f.name != "source" and getattr(value, f.name) is not None}
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def objects(cluster: Cluster) -> dict[ObjectKey, Any]:
    """Every object of the snapshot by its key."""
    every = [*cluster.models, *cluster.runtimes, *cluster.inference_services, *cluster.accelerator_classes]
    return {object_key(o): o for o in every}


def diff(before: Cluster, after: Cluster) -> list[Change]:
    """The changes from `before` to `after`, by object key, then field order."""
    old, new = objects(before), objects(after)
    changes: list[Change] = []
    for key in sorted(old.keys() | new.keys(), key=lambda k: (k[0], k[1] or "", k[2])):
        a, b = old.get(key), new.get(key)
        if a is None or b is None:
            changes.append(Change(key, "", a, b, written=(before.contents.get(key), after.contents.get(key))))
        elif a != b:
            documents = (before.contents.get(key), after.contents.get(key))
            changes += [_as_written(c, documents) for c in _fields(key, a, b)]
    return [_placed(c, (old, new), (before, after)) for c in changes]


def _fields(key: ObjectKey, a, b) -> list[Change]:
    out = []
    for attr, path in _PATHS[type(a)].items():
        x, y = getattr(a, attr), getattr(b, attr)
        if x == y:
            continue
        if attr == "entries" and len(x) == len(y):
            for i, (e, f) in enumerate(zip(x, y)):
                for field_name, sub in _ENTRY_PATHS.items():
                    out += _nested(key, (attr, i, field_name), f"{path}[{i}].{sub}", getattr(e, field_name),
                                   getattr(f, field_name), (attr, i))
        else:
            out += _nested(key, (attr,), path, x, y, (attr,))
    return out


_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]|\[("(?:[^"\\]|\\.)*")\]')
_MISSING = object()


def _keys(path: str) -> tuple[list, bool]:
    """The steps of a YAML path (as `_PATHS` spell them) as keys, and whether
    they are the whole path (`containers[].env[…]` is not one to read back)."""
    keys, at = [], 0
    for match in _STEP.finditer("." + path):
        if match.start() != at:
            return keys, False
        at = match.end()
        keys.append(match[1] if match[1] is not None else int(match[2]) if match[2] is not None else json.loads(match[3]))
    return keys, at == len(path) + 1


def _has(value: Any, key: Any) -> bool:
    return isinstance(value, list) and 0 <= key < len(value) if isinstance(key, int) else isinstance(value, dict) and key in value


def written_at(document: Any, path: str) -> Any:
    """The value at a YAML path of a document, None where it is not written,
    _MISSING where the path is not one to read back."""
    keys, whole = _keys(path)
    if not whole:
        return _MISSING
    value = document
    for key in keys:
        value = value[key] if _has(value, key) else None
    return value


def _line(document: Document, content: Any, path: str, start: int) -> int:
    """The line of the deepest step of `path` written in `content` (its key,
    or a list's item); `start`, the object's line, when none is."""
    parent, key, value = None, None, content
    for step in _keys(path)[0]:
        if not _has(value, step):
            break
        parent, key, value = value, step, value[step]
    return start if parent is None else document.line(parent, key)


def _placed(change: Change, objects: tuple[dict, dict], clusters: tuple[Cluster, Cluster]) -> Change:
    """`change` and its entries with their places (where the input has lines)."""
    def place(path: str, new: Any) -> Place | None:
        side = 0 if new is None else 1  # what was removed is written only before
        obj = objects[side].get(change.object)
        document = clusters[side].documents.get(change.object)
        if obj is None or document is None or obj.source.line is None:
            return None
        path = re.sub(r"\[(\d+)→(\d+)\]", lambda m: f"[{m[1 + side]}]", path)
        return Place(("before", "after")[side], obj.source.file,
                     _line(document, clusters[side].contents[change.object], path, obj.source.line))

    new = change.new if not change.path else change.values()[1][0]
    parts = tuple((path, a, b, place(path, b)) for path, a, b in change.parts)
    return dataclasses.replace(change, parts=parts, place=place(change.path, new))


def _as_written(change: Change, documents: tuple) -> Change:
    """`change` with its values as the documents write them (and a list's
    changes entry by entry), where its path reads back from them."""
    written = tuple(written_at(d, change.path) for d in documents)
    if _MISSING in written:
        return change
    parts = _entry_parts(change.path, *written) if change.attrs == ("entries",) else ()
    return dataclasses.replace(change, written=written, parts=parts)


def _entry_key(entry: Any) -> Any:
    """What identifies an entry across two versions of a list: its name, else its format and framework."""
    if not isinstance(entry, dict):
        return None
    if entry.get("name"):
        return ("name", entry["name"])
    return tuple((part or {}).get("name") if isinstance(part, dict) else part
                 for part in (entry.get("modelFormat"), entry.get("modelFramework")))


def _entry_parts(path: str, old: Any, new: Any) -> tuple:
    """A list's changes entry by entry, (path, from, to): each entry matched
    by its key where every entry of each side has its own, else by position
    (never the whole list as one value, issue 37)."""
    if not isinstance(old, list) and not isinstance(new, list):
        return ()
    old, new = (side if isinstance(side, list) else [] for side in (old, new))
    keys = [[_entry_key(e) for e in side] for side in (old, new)]
    if any(None in side or len(set(side)) != len(side) for side in keys):
        keys = [list(range(len(old))), list(range(len(new)))]
    position = {key: j for j, key in enumerate(keys[1])}
    out: list[tuple] = []
    for i, key in enumerate(keys[0]):
        if key not in position:
            out.append((f"{path}[{i}]", old[i], None))
            continue
        j = position[key]
        leaves: list = []
        _leaves(None, "", old[i], new[j], leaves)
        where = f"{path}[{i}]" if i == j else f"{path}[{i}→{j}]"
        out += [(where + ("." * (leaf[:1] not in ("", "[")) + leaf), a, b) for _, leaf, a, b in leaves]
    out += [(f"{path}[{j}]", None, new[j]) for j, key in enumerate(keys[1]) if key not in set(keys[0])]
    return tuple(out)


def _nested(key: ObjectKey, attrs: tuple, path: str, x, y, facet: tuple) -> list[Change]:
    if x == y:
        return []
    subs = _SUB_PATHS.get(attrs[-1])
    if subs is None or x is None or y is None:
        return [Change(key, path, x, y, attrs, facet)]
    return [Change(key, f"{path}.{sub}", getattr(x, f), getattr(y, f), attrs + (f,), facet)
            for f, sub in subs.items() if getattr(x, f) != getattr(y, f)]


def merged(changes: list[Change], before: Cluster, after: Cluster) -> Change:
    """The changes of one facet as one change of the whole part (compare tries
    every combination of a facet's changes; past a few, the part is one edit).
    Only an entry has more fields than that; it is shown as written."""
    first = changes[0]
    key, attrs = first.object, first.facet
    old, new = objects(before)[key], objects(after)[key]
    path = f"{_PATHS[type(old)][attrs[0]]}" + "".join(f"[{a}]" for a in attrs[1:])
    written, parts = None, ()
    if attrs[0] == "entries":
        written = tuple(c.contents[key]["spec"]["supportedModelFormats"][attrs[1]] for c in (before, after))
        leaves: list = []
        _leaves(None, path, *written, leaves)
        parts = tuple(leaf[1:] for leaf in leaves)
    change = Change(key, path, _get(old, attrs), _get(new, attrs), attrs, attrs, written, parts)
    return _placed(change, (objects(before), objects(after)), (before, after))


def _get(obj, attrs: tuple):
    for a in attrs:
        obj = obj[a] if isinstance(a, int) else getattr(obj, a)
    return obj


def apply(cluster: Cluster, changes: list[Change]) -> Cluster:
    """`cluster` with `changes` (from `diff(cluster, ...)`) applied, in canonical order (I10)."""
    every = objects(cluster)
    for change in changes:
        every[change.object] = set_field(every.get(change.object), change.attrs, change.new)
    return rebuild(cluster, [o for o in every.values() if o is not None])


def set_field(obj, attrs: tuple, value):
    """`obj` with the field at `attrs` set to `value` (the whole object for ())."""
    if not attrs:
        return value
    head, rest = attrs[0], attrs[1:]
    if isinstance(head, int):
        items = list(obj)
        items[head] = set_field(items[head], rest, value)
        return tuple(items)
    return records.replace(obj, **{head: set_field(getattr(obj, head), rest, value)})


def rebuild(cluster: Cluster, every: list) -> Cluster:
    """A cluster of `every` object, sorted as the loader sorts (I10), under `cluster`'s profile."""
    def by_key(o):
        kind, namespace, name = object_key(o)
        return (kind, namespace or "", name)

    def of(cls):
        return sorted((o for o in every if isinstance(o, cls)), key=by_key)

    return records.replace(cluster, models=of(Model), runtimes=of(Runtime), inference_services=of(InferenceService),
                               accelerator_classes=of(AcceleratorClass))


# --- fields selection does not read --------------------------------------------


def raw_changes(before: Cluster, after: Cluster) -> list[tuple[ObjectKey, str, Any, Any]]:
    """Every leaf of the objects' documents that differs: (object, YAML path, before, after)."""
    out = []
    for key in sorted(before.contents.keys() & after.contents.keys(), key=lambda k: (k[0], k[1] or "", k[2])):
        _leaves(key, "", before.contents[key], after.contents[key], out)
    return out


def _leaves(key, path: str, x, y, out: list) -> None:
    if x == y:
        return
    if isinstance(x, dict) and isinstance(y, dict):
        for k in list(x) + [k for k in y if k not in x]:
            _leaves(key, (path + _step(k)).lstrip("."), x.get(k), y.get(k), out)
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (a, b) in enumerate(zip(x, y)):
            _leaves(key, f"{path}[{i}]", a, b, out)
    else:
        out.append((key, path, x, y))


def covers(change_path: str, raw_path: str) -> bool:
    """Whether the raw leaf at `raw_path` is part of the field at `change_path` (or holds it)."""
    shorter, longer = sorted((change_path, raw_path), key=len)
    return longer == shorter or longer.startswith(shorter + ".") or longer.startswith(shorter + "[")
