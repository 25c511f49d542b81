"""YAML text in, documents out: each with its content and, on demand, the line
of any of its parts (spec I1, I4).

Only the safe loader is used (the C one when available). Line numbers cost
nothing on the common path: a document keeps its node tree, and the first
message that needs a line indexes it. Malformed YAML raises `InputError` as
`<file>:<line>:<column>: document <n>: not valid YAML: <problem>`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from ome_asp.errors import InputError
from ome_asp.input.limits import check_alias_expansion
from ome_asp.patterns import Pattern

_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# An alias needs a `*` in the text; nothing else is assumed about where one
# can stand (libyaml also takes U+0085, U+2028, U+2029 and a BOM as the space
# before one, which a scan of the text missed: issue 18). Only files with a
# `*` pay for the alias-expansion check, which walks every node.
def _may_hold_aliases(text: str) -> bool:
    return "*" in text


_TAG = "tag:yaml.org,2002:"


class _Loader(_SafeLoader):  # type: ignore[misc, valid-type]
    """The safe loader, reading scalars and keys as kubectl does where PyYAML's
    YAML 1.1 differs (sigs.k8s.io/yaml: go-yaml's types, then JSON; D-59): no
    timestamps (an unquoted `2024-01-01` stays a string) and no bare `=`;
    no base-60 numbers (`1:30` is a string, not 90); a mapping key that is
    not a string is the JSON text of its value (`1` is "1", `true` is "true",
    so they do not collide as Python's 1 == True). Stricter where PyYAML would
    lose or crash: a key written twice in one mapping is an error (as
    kubectl's strict decoding makes it), a key that is a list or a mapping is
    an error (JSON has none), and a scalar that does not fit its explicit tag
    (`!!int abc`) is a YAML error rather than a ValueError."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        if not isinstance(node, yaml.MappingNode):
            return super().construct_mapping(node, deep=deep)  # its error
        # flatten_mapping deletes `<<` pairs from this very list and, if there
        # were any, gives the node a new list that starts with the merged
        # pairs: `written` ends up holding the written pairs.
        written = node.value
        self.flatten_mapping(node)
        mapping = {}
        for key_node, value_node in node.value:
            mapping[_json_key(self, key_node, deep)] = self.construct_object(value_node, deep=deep)
        if len(mapping) < len(written) or node.value is not written:
            _reject_repeated_keys(self, node, written)
        return mapping


def _json_key(loader: SafeConstructor, node: yaml.Node, deep: bool = True) -> str:
    """A mapping key as sigs.k8s.io/yaml makes it a JSON object key: a string
    as it is, an int, a boolean or null as its JSON text. Other keys (lists,
    mappings, floats, whose Go text this does not reproduce) are refused."""
    key = loader.construct_object(node, deep=deep)
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int)):
        import json  # imported when used, not by every run (D-142)

        return json.dumps(key)
    kind = {float: "a number", list: "an array", dict: "an object"}.get(type(key), type(key).__name__)
    raise ConstructorError(None, None, f"a mapping key must be a string, an integer, a boolean or null, not {kind}", node.start_mark)


# PyYAML's YAML 1.1 ints and floats without base 60 (`1:30`), which go-yaml
# does not have. go-yaml's other differences (`y`/`n` booleans, `0o17`,
# `1e3`) are not taken: PyYAML's writer leaves such strings unquoted, so the
# YAML that ome-asp and its tests write would no longer read back.
_NO_BASE_60 = {
    "int": Pattern(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    "float": Pattern(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
}
_Loader.yaml_implicit_resolvers = {
    first: [
        (tag, _NO_BASE_60.get(tag.removeprefix(_TAG), pattern))
        for tag, pattern in resolvers
        if tag not in (_TAG + "timestamp", _TAG + "value")
    ]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}


def _reject_repeated_keys(loader: SafeConstructor, node: yaml.MappingNode, pairs: list) -> None:
    """Raise on the first key written twice among `pairs` (merged keys may repeat)."""
    first_line: dict[Any, int] = {}
    for key_node, _ in pairs:
        key = _json_key(loader, key_node)
        if key in first_line:
            raise ConstructorError(
                None, None, f"mapping key {_show(key)} already defined at line {first_line[key]}", key_node.start_mark
            )
        first_line[key] = key_node.start_mark.line + 1


def _show(key: Any) -> str:
    return quote(key) if isinstance(key, str) else repr(key)


#: Longer values are cut in messages (a message is one readable line).
MESSAGE_VALUE_CHARS = 100


def quote(text: str, cut: bool = True) -> str:
    """A JSON string for a message line, cut after MESSAGE_VALUE_CHARS. Every
    character that is not printable comes out escaped -- control characters,
    NUL, lone surrogates, and also U+0085, U+2028 and U+2029, which JSON
    leaves raw but which end a line for many readers -- so every message is
    one line."""
    import json  # imported when used, not by every run (D-142)

    long = cut and len(text) > MESSAGE_VALUE_CHARS
    shown = json.dumps(text[:MESSAGE_VALUE_CHARS] if long else text, ensure_ascii=False)
    shown = "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in shown)
    return f"{shown}… ({len(text)} characters)" if long else shown


def shown(text: str, cut: bool = True) -> str:
    """A name (or, not `cut`, a file path) as written when it reads well on
    one line, else quoted."""
    if text.isprintable() and text and not (cut and len(text) > MESSAGE_VALUE_CHARS):
        return text
    return quote(text, cut)


def _strict_scalar(construct: Callable[[SafeConstructor, yaml.ScalarNode], Any]) -> Callable[[SafeConstructor, yaml.ScalarNode], Any]:
    def construct_or_fail(loader: SafeConstructor, node: yaml.ScalarNode) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, KeyError, IndexError, AttributeError, OverflowError):  # !!int "" is an IndexError
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            raise ConstructorError(None, None, f"cannot read {quote(node.value)} as {tag}", node.start_mark) from None

    return construct_or_fail


for _tag in ("int", "float", "bool", "timestamp"):
    _tag = f"tag:yaml.org,2002:{_tag}"
    _Loader.add_constructor(_tag, _strict_scalar(_SafeLoader.yaml_constructors[_tag]))


#: `key` of `Document.line` when the line wanted is the parent's own.
NO_KEY = object()


class Document:
    """One YAML document of an input file; or, without a node tree (`root`
    None), a document of a JSON list (a serve request's `manifests`), which
    has no lines: its place is its JSON path."""

    def __init__(self, number: int, root: yaml.Node | None, content: Any) -> None:
        self.number = number  # 1-based position in the file's stream
        self.content = content
        self._root = root
        self._index: dict[int, tuple[yaml.Node, int]] | None = None
        self._items: yaml.Node | None = None

    @property
    def has_lines(self) -> bool:
        return self._root is not None

    def line(self, parent: Any = None, key: Any = NO_KEY) -> int:
        """1-based line of `parent[key]`: its key for a mapping, the item for a
        list. Without a key, or when the key is not written there, the line of
        `parent` itself (its own key); without a parent, the document's."""
        if parent is None:
            return self._root.start_mark.line + 1
        if self._index is None:
            self._index = _index(self._root, self.content)
        node, line = self._index.get(id(parent), (self._root, self._root.start_mark.line))
        if key is not NO_KEY:
            found = _locate(node, key)
            if found is not None:
                return found.start_mark.line + 1
        return line + 1

    def item_line(self, index: int) -> int:
        """The line of `items[index]` of a `kind: List` document; unlike
        `line`, it does not index the whole document, as every item needs it."""
        if self._items is None:
            self._items = _locate(self._root, "items", value=True)
        if isinstance(self._items, yaml.SequenceNode) and index < len(self._items.value):
            return self._items.value[index].start_mark.line + 1
        return self.line()


def _index(root: yaml.Node, content: Any) -> dict[int, tuple[yaml.Node, int]]:
    """id of every dict and list of `content` -> (its node, 0-based line of its key)."""
    index: dict[int, tuple[yaml.Node, int]] = {}
    stack = [(root, content, root.start_mark.line)]
    while stack:
        node, data, line = stack.pop()
        if id(data) in index:  # an alias: the first place is enough
            continue
        index[id(data)] = (node, line)
        if isinstance(data, dict) and isinstance(node, yaml.MappingNode):
            # The last pair of a key is the one constructed (merged pairs come first).
            last = {}
            for key_node, value_node in node.value:
                key = _key(key_node)
                if key is not NO_KEY:
                    last[key] = (key_node, value_node)
            for key, (key_node, value_node) in last.items():
                if isinstance(data.get(key), (dict, list)):
                    stack.append((value_node, data[key], key_node.start_mark.line))
        elif isinstance(data, list) and isinstance(node, yaml.SequenceNode):
            for item_node, item in zip(node.value, data):
                if isinstance(item, (dict, list)):
                    stack.append((item_node, item, item_node.start_mark.line))
    return index


def _locate(node: yaml.Node, key: Any, value: bool = False) -> yaml.Node | None:
    """The key node (or with `value`, the value node) of `key` in a mapping
    node, or the item node at index `key` of a sequence node."""
    if isinstance(node, yaml.MappingNode):
        found = None
        for key_node, value_node in node.value:
            if _key(key_node) == key:
                found = value_node if value else key_node
        return found
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return node.value[key]
    return None


def _key(node: yaml.Node) -> Any:
    """A scalar key as the loader constructed it; NO_KEY for other keys
    (they cannot be looked up by a field name)."""
    if not isinstance(node, yaml.ScalarNode):
        return NO_KEY
    try:
        return _Keys().construct_document(node)
    except yaml.YAMLError:
        return NO_KEY


class _Keys(SafeConstructor):
    """A bare constructor with the loader's scalar rules, for keys only."""

    yaml_constructors = _Loader.yaml_constructors


def decode(label: str, data: bytes) -> str:
    """`data` as UTF-8 text; else an InputError at the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8")) + 1
        raise InputError(f"{label}:{line}:{column}: not valid UTF-8: byte 0x{data[err.start]:02x}") from None


_LINE_START_BOM = Pattern("^\ufeff", re.MULTILINE)


def documents(label: str, text: str) -> Iterator[Document]:
    """The documents of one file, in stream order; empty ones have content None.

    Each document is checked for alias expansion before it is constructed,
    and only one document's nodes are held at a time.
    """
    if "\ufeff" in text:
        # YAML 1.2 allows a byte order mark at the start of every document
        # (files joined by `cat`); libyaml skips one only at the start of the
        # stream, and read "kind" after it as a key at column 1 (issue 18).
        text = _LINE_START_BOM.sub("", text)
    maybe_aliases = _may_hold_aliases(text)
    loader = _Loader(text)
    number = 0  # documents read completely
    try:
        while loader.check_node():
            root = loader.get_node()
            if maybe_aliases and (refused := check_alias_expansion(root)):
                node, why = refused
                raise InputError(f"{label}:{node.start_mark.line + 1}: document {number + 1}: {why}")
            content = loader.construct_document(root)
            number += 1
            yield Document(number, root, content)
    except yaml.YAMLError as err:
        raise InputError(f"{label}:{_yaml_problem(err, text, number + 1)}") from None
    except RecursionError:
        # Only the pure-Python parser recurses; libyaml limits nesting itself.
        raise InputError(f"{label}: document {number + 1}: not valid YAML: nested too deeply") from None
    finally:
        loader.dispose()


def _yaml_problem(err: yaml.YAMLError, text: str, number: int) -> str:
    """`<line>:<column>: document <n>: not valid YAML: <problem>` for a YAML error."""
    mark = getattr(err, "problem_mark", None)
    if mark is not None:
        problem = getattr(err, "problem", None) or getattr(err, "context", None)
        return f"{mark.line + 1}:{mark.column + 1}: document {number}: not valid YAML: {problem}"
    if isinstance(err, yaml.reader.ReaderError) and isinstance(err.character, int):
        # The reader checks characters ahead of the parser, so the document is
        # not known; its first occurrence is the culprit (the C and Python
        # loaders count `position` differently: bytes versus characters).
        at = text.find(chr(err.character))
        line = text.count("\n", 0, at) + 1
        column = at - text.rfind("\n", 0, at)
        return f"{line}:{column}: not valid YAML: unacceptable character #x{err.character:04x}: {err.reason}"
    return f" document {number}: not valid YAML: {str(err).splitlines()[0]}"
