"""steer's edits written into the user's own manifests (issue 37): with Argo CD
or Flux a `kubectl patch` is reverted at the next sync, the fix belongs in git.

An edit set arrives as steer's patches per object (RFC 6902 operations, or one
RFC 7386 merge document: `steer -o json`'s `patches`). `apply` makes them on a
document's mapping; `manifests` prints the edited objects (`steer -o
manifests`); `write` edits the files the objects were read from in place
(`steer --write`, D-242):

- only the documents holding an edited object are rewritten, each by
  ruamel.yaml's round-trip reader and writer (comments, key order, quotes,
  flow style kept; the document's indentation guessed from its text); every
  other byte of the file is left as it was;
- a key that misspells the field an edit sets (`autoselect` beside a missing
  `autoSelect`, as the loader's "did you mean" finds it) is renamed in its
  place, never left beside the new key (D-243);
- each written file is read back by the loader's YAML reader and must hold
  exactly the objects before, with the patches made (`write` raises
  otherwise); the caller selects again on the re-read manifests.
"""

from __future__ import annotations

import copy
import io
import os
import re
from collections.abc import MutableMapping
from typing import Any

from ome_asp.errors import InputError, InternalError
from ome_asp.input.documents import documents, shown
from ome_asp.input.loader import (
    ACCELERATOR_REQUIREMENT_KEYS,
    ENTRY_KEYS,
    FORMAT_KEYS,
    SIZE_RANGE_KEYS,
    closest,
)
from ome_asp.input.objects import Source

#: One object's patch, as steer gives it: its place, "json" or "merge", the operations or document.
Patch = tuple[Source, str, Any]


def apply(content: MutableMapping, kind: str, patch: Any) -> None:
    """Make one patch (RFC 6902 operations, or an RFC 7386 document) on an
    object's mapping, in place."""
    if kind == "merge":
        _merge(content, patch, [])
        return
    for operation in patch:
        keys = [_token(t) for t in operation["path"].split("/")[1:]]
        parent = content
        for key in keys[:-1]:
            parent = parent[key]
        if operation["op"] == "remove":
            del parent[keys[-1]]
        elif operation["op"] == "add" and isinstance(parent, MutableMapping):
            _set(parent, keys, operation["value"])
        else:
            raise InternalError(f"steer's patch {operation} is not an add to a mapping nor a remove")


def _token(text: str) -> str | int:
    """A JSON pointer's token: an index of a list, else a key (RFC 6901 escapes)."""
    return int(text) if text.isdigit() else text.replace("~1", "/").replace("~0", "~")


def _merge(target: MutableMapping, document: dict, path: list) -> None:
    for key, value in document.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict):
            if not isinstance(target.get(key), MutableMapping):
                _set(target, [*path, key], {})
            _merge(target[key], value, [*path, key])
        else:
            _set(target, [*path, key], value)


# The loader's tables of the keys a mapping may hold, by the shape of its path
# (an entry, its format or framework, the size range, the accelerator
# requirements): where a key is not one of them, the loader warns "did you mean".
_KNOWN = (
    (re.compile(r".*/supportedModelFormats/\d+"), ENTRY_KEYS),
    (re.compile(r".*/supportedModelFormats/\d+/(modelFormat|modelFramework)"), FORMAT_KEYS),
    (re.compile(r".*/modelSizeRange"), SIZE_RANGE_KEYS),
    (re.compile(r".*/acceleratorRequirements"), ACCELERATOR_REQUIREMENT_KEYS),
)


def _set(mapping: MutableMapping, keys: list, value: Any) -> None:
    """`mapping[keys[-1]] = value`; a key that misspells it is renamed in its
    place (D-243): one the loader's table for this mapping does not know and
    `closest` reads as the key, or, where the loader keeps no table, the key
    in other case."""
    key = keys[-1]
    if key not in mapping:
        path = "/" + "/".join(map(str, keys[:-1]))
        known = next((table for pattern, table in _KNOWN if pattern.fullmatch(path)), None)
        for other in list(mapping):
            misspelt = (isinstance(other, str) and other not in (known or (key,))
                        and (closest(other, known) == key if known else other.lower() == key.lower()))
            if misspelt:
                _rename(mapping, other, key)
                break
    mapping[key] = _styled(mapping.get(key), value)


def _styled(old: Any, value: Any) -> Any:
    """A list or mapping that replaces one written in flow style (`[a, b]`,
    ruamel's CommentedSeq and CommentedMap) is written so too."""
    style = getattr(old, "fa", None)
    if style is None or not style.flow_style() or not isinstance(value, (list, dict)) or isinstance(value, type(old)):
        return value
    new = type(old)(value)
    new.fa.set_flow_style()
    return new


def _rename(mapping: MutableMapping, old: str, new: str) -> None:
    """Rename a key in its place, with its comments (ruamel's CommentedMap)."""
    items = list(mapping.items())
    comments = getattr(getattr(mapping, "ca", None), "items", {})
    if old in comments:
        comments[new] = comments.pop(old)
    mapping.clear()
    mapping.update((new if k == old else k, v) for k, v in items)


# --- -o manifests -----------------------------------------------------------------


def manifests(objects: list[tuple[dict, str, Any]]) -> str:
    """The edited objects as YAML documents: each object's document as read
    (`Cluster.contents`) with its patch made."""
    import yaml

    edited = []
    for content, kind, patch in objects:
        content = copy.deepcopy(content)
        apply(content, kind, patch)
        edited.append(content)
    return yaml.safe_dump_all(edited, sort_keys=False, allow_unicode=True, width=2**16)


# --- --write ------------------------------------------------------------------------

_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|$)", re.MULTILINE)


def writable(source: Source) -> str | None:
    """Why an object's file cannot be edited in place, or None."""
    if source.json_path or not os.path.isfile(source.file):
        return f"{source} was not read from a file (-f): stdin, kubectl's output or a live cluster"
    return None


def write(patches: list[Patch]) -> tuple[list[str], list[str]]:
    """Edit each object's file in place (see the module's docstring): the
    files written, in order, and a warning for each document ruamel.yaml
    does not write back byte for byte (mixed indentation, say), whose other
    lines change too. Nothing is written when any file cannot be."""
    by_file: dict[str, list[Patch]] = {}
    for patch in patches:
        why = writable(patch[0])
        if why is not None:
            raise InputError(f"--write: {why}")
        by_file.setdefault(patch[0].file, []).append(patch)
    warnings: list[str] = []
    texts = {file: _edited_text(file, file_patches, warnings) for file, file_patches in by_file.items()}
    for file, (after, expected) in texts.items():
        _check(file, after, expected)
    for file, (after, _) in texts.items():
        with open(file, "w", encoding="utf-8", newline="") as handle:
            handle.write(after)
    for file, (_, expected) in texts.items():  # read back as written
        with open(file, encoding="utf-8", newline="") as handle:
            _check(file, handle.read(), expected)
    return list(texts), warnings


def _chunks(text: str) -> list[str]:
    """The text cut before each `---` that starts a document; with the first
    piece (before any `---`), they join to the text."""
    cuts = [m.start() for m in _DOCUMENT_START.finditer(text)]
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]


def _holds_document(chunk: str) -> bool:
    """Whether the text before the first `---` is a document (not only comments and blank lines)."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in chunk.splitlines())


def _edited_text(file: str, patches: list[Patch], warnings: list[str]) -> tuple[str, list]:
    """The file's text with the patches made, and each document's content as
    the loader must read it back."""
    with open(file, encoding="utf-8", newline="") as handle:
        text = handle.read()
    chunks = _chunks(text)
    first = 0 if _holds_document(chunks[0]) else 1  # the chunk of document 1
    expected = [document.content for document in documents(shown(file, cut=False), text)]
    by_document: dict[int, list[Patch]] = {}
    for patch in patches:
        by_document.setdefault(patch[0].document, []).append(patch)
    for number, document_patches in by_document.items():
        index = first + number - 1
        if index >= len(chunks) or number > len(expected):
            raise InputError(f"--write: {document_patches[0][0]}: the file changed since it was read")
        chunks[index], kept = _edited_chunk(chunks[index], document_patches)
        if not kept:
            warnings.append(f"--write: {shown(file, cut=False)}: document {number}: ruamel.yaml does not write it back "
                            "as written (mixed indentation?): lines besides the edited ones change; review the diff")
        for source, kind, patch in document_patches:
            target = expected[number - 1] if source.item is None else expected[number - 1]["items"][source.item]
            apply(target, kind, patch)
    return "".join(chunks), expected


def _edited_chunk(chunk: str, patches: list[Patch]) -> tuple[str, bool]:
    """One document's text with its objects' patches made, by ruamel.yaml's
    round trip at the document's own indentation; and whether the round trip
    alone gives the text back (else other lines change too)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 2**16  # never fold a long line the user wrote on one
    mapping, sequence, offset = _indentation(chunk)
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    yaml.explicit_start = chunk.startswith("---")
    content = yaml.load(chunk)
    texts = []
    for edit in (False, True):
        for source, kind, patch in patches if edit else ():
            apply(content if source.item is None else content["items"][source.item], kind, patch)
        out = io.StringIO()
        yaml.dump(content, out)
        texts.append(out.getvalue())
    return texts[1], texts[0] == chunk


def _indentation(text: str) -> tuple[int, int, int]:
    """How a document indents, as ruamel's `indent` takes it: a mapping's
    keys under their key, a sequence's items under their key, and the dashes
    under their key; from the first of each the text writes (ruamel's own
    guess, load_yaml_guess_indent, reads the mapping's from the sequence's)."""
    mapping = sequence = offset = None
    parent = None  # the column of the key a line `key:` (or `- key:`) opens
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        column = len(line) - len(line.lstrip(" "))
        if parent is not None and column > parent:
            if stripped.startswith("- ") and offset is None:
                offset = column - parent
                sequence = offset + 2 + len(stripped[2:]) - len(stripped[2:].lstrip(" "))
            elif not stripped.startswith("- ") and mapping is None:
                mapping = column - parent
        opens = stripped.split(" #")[0].rstrip().endswith(":")
        parent = (column + 2 if stripped.startswith("- ") else column) if opens else None
    return mapping or 2, sequence or 2, offset or 0


def _check(file: str, text: str, expected: list) -> None:
    """The text must read back as the expected documents."""
    found = [document.content for document in documents(shown(file, cut=False), text)]
    if found != expected:
        raise InternalError(f"--write: {shown(file, cut=False)} would not read back as the edited objects")
