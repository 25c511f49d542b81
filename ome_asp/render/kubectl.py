"""kubectl's output formats, as kubectl reads them (issue 36, D-282):
`-o name`, `-o jsonpath=TEMPLATE` and `-o custom-columns=SPEC`, each a view
of the document `-o json` prints (so their fields are the report's, exactly).

The JSONPath dialect is kubectl's (client-go's util/jsonpath, the syntax
https://kubernetes.io/docs/reference/kubectl/jsonpath/ documents): text
outside `{…}` printed as it is; inside, `.field`, `['field']`, `..field`,
`*`, `[i]`, `[start:end:step]` (negative indices), `[a,b]` unions,
`[?(@.f OP value)]` filters (==, !=, <, >, <=, >=; `[?(@.f)]` for a field
that exists), `{range …}…{end}`, quoted text with Go's escapes (`{"\\n"}`),
and `@`/`$` for the current object. A value prints as kubectl prints it:
a string as it is, null as `null`, a list or an object as compact JSON
(keys sorted, `<`, `>`, `&` escaped as Go's encoder does), several values of
one action separated by spaces; a missing field prints nothing
(--allow-missing-template-keys, on by default). Where kubectl's order is
Go's map order (a `*` or `..` over an object), which varies from run to run,
the report's field order is used. Integers beyond int64 print as the float64
kubectl reads them as (`1.2345678901234567e+19`).

custom-columns (`HEADER:PATH,…`, PATH as kubectl's relaxed form: `.a.b`,
`a.b`, `{.a.b}`) makes a row of each item of the document (a `List`'s items,
an AdmissionReport's), or of the document itself; a cell holds the values
found joined by commas (`<none>` for none; null as `<nil>`, a list as
`[a b]`, an object as `map[k:v]`: Go's %v), columns laid out as kubectl's
tabwriter lays them (at least 6 wide, 3 spaces apart, the last unpadded).
Characters that are not printable are shown escaped, as the explain table
shows them (D-115), where kubectl would let a tab split a cell.
"""

from __future__ import annotations

import re
from _json import encode_basestring
from collections.abc import Iterator
from typing import Any

from ome_asp.errors import UsageError
from ome_asp.patterns import Pattern
from ome_asp.render.table import escape

GROUP = "ome.io"  # the API group of the runtimes -o name names
INT64 = (-(2**63), 2**63 - 1)


class TemplateError(UsageError):
    """A template kubectl would refuse: `error parsing jsonpath …` or `error executing jsonpath …`."""


# --- formats -------------------------------------------------------------------------


FORMATS = ("name", "jsonpath=TEMPLATE", "custom-columns=SPEC")


def is_format(output: str) -> bool:
    """Whether `-o output` is one of kubectl's formats this module writes."""
    return output == "name" or output.startswith(("jsonpath=", "custom-columns="))


def check(output: str) -> None:
    """A template or spec kubectl would refuse, refused before any input is read."""
    if output.startswith("jsonpath="):
        Template(output[len("jsonpath="):])
    elif output.startswith("custom-columns="):
        columns(output[len("custom-columns="):])


def render(output: str, document: Any, no_headers: bool = False) -> str:
    """The text of `-o output` (name, jsonpath=…, custom-columns=…) for the
    document `-o json` prints."""
    if output == "name":
        return "".join(f"{name}\n" for name in names(document))
    if output.startswith("jsonpath="):
        return Template(output[len("jsonpath="):]).execute(document)
    return custom_columns(columns(output[len("custom-columns="):]), items(document), no_headers)


def items(document: Any) -> list[Any]:
    """What kubectl makes rows of: a document's `items` when it has a list of them, else the document."""
    inner = document.get("items") if isinstance(document, dict) else None
    return inner if isinstance(inner, list) else [document]


def names(document: Any) -> Iterator[str]:
    """`-o name`: the runtimes the document is about, as kubectl names objects
    (`<kind>.<group>/<name>`): an explain report's rows, in their order; the
    runtime a selection uses, if any; an admission report's runtimes; each
    item's of a List."""
    kind = document.get("kind") if isinstance(document, dict) else None
    if kind == "List":
        for item in document["items"]:
            yield from names(item)
        return
    if kind == "RuntimeExplainReport":
        runtimes = [(row["kind"], row["runtime"]) for row in document["rows"]]
    elif kind == "RuntimeSelection":
        runtimes = [] if document.get("selected") is None else [(document["selected"]["kind"], document["selected"]["name"])]
    elif kind == "AdmissionReport":
        runtimes = [(item["kind"], item["name"]) for item in document["items"]]
    else:  # --show opt's criteria: no object
        runtimes = []
    for kind, name in runtimes:
        yield f"{kind.lower()}.{GROUP}/{name}"


# --- custom-columns --------------------------------------------------------------------


_RELAXED = Pattern(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$")


def columns(spec: str) -> list[tuple[str, Template]]:
    """`HEADER:PATH,…` as kubectl reads it: PATH in the relaxed form."""
    if not spec:
        raise UsageError("custom-columns format specified but no custom columns given")
    found = []
    for part in spec.split(","):
        pieces = part.split(":")
        if len(pieces) != 2:
            raise UsageError(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        header, path = pieces
        match = _RELAXED.match(path)
        if path and match is None:
            raise UsageError("unexpected path string, expected a 'name1.name2' or '.name1.name2' or "
                             "'{name1.name2}' or '{.name1.name2}'")
        found.append((header, Template(f"{{.{match[1] or match[2]}}}" if path else "")))
    return found


def custom_columns(spec: list[tuple[str, Template]], rows: list[Any], no_headers: bool) -> str:
    """The rows of `rows`' cells under the headers, laid out as kubectl's tabwriter."""
    table = [] if no_headers else [[escape(header) for header, _ in spec]]
    for row in rows:
        cells = []
        for _, template in spec:
            values = [value for results in template.results(row) for value in results]
            cells.append(escape(",".join(_go_v(value) for value in values)) if values else "<none>")
        table.append(cells)
    if not table:
        return ""
    widths = [max(6, max(len(line[i]) for line in table) + 3) for i in range(len(spec) - 1)]
    return "".join("".join(cell.ljust(width) for cell, width in zip(line, widths)) + line[-1] + "\n" for line in table)


# --- values as kubectl prints them -------------------------------------------------------


def _go_float(number: int, style: str) -> str:
    """An integer beyond int64 (at least 2^63 in size), as kubectl reads it: a
    float64, printed as Go's %v (`v`: always an exponent at that size) or as
    encoding/json writes it (`json`: plain digits below 1e21)."""
    text = repr(float(number))  # Python's shortest digits, as Go's: an exponent at this size ("9.2e+18")
    if style == "v" or abs(number) >= 10**21:
        return text
    mantissa, exponent = text.split("e")
    sign, mantissa = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
    figures = mantissa.replace(".", "")
    return sign + figures + "0" * (int(exponent) + 1 - len(figures))


def _number(value: int | float, style: str) -> str:
    """A JSON number (the reports hold integers only; a float is shown as Python writes it)."""
    if isinstance(value, float):
        return repr(value)
    return str(value) if INT64[0] <= value <= INT64[1] else _go_float(value, style)


_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_GO_ESCAPE = Pattern("[<>&\u2028\u2029]")


def _json(value: Any) -> str:
    """Go's json.Marshal: compact, keys sorted, <, > and & escaped."""
    if isinstance(value, bool) or value is None:
        return "null" if value is None else "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number(value, "json")
    if isinstance(value, str):
        return _GO_ESCAPE.sub(lambda m: _GO_ESCAPES[m[0]], encode_basestring(value))
    if isinstance(value, dict):
        return "{" + ",".join(f"{_json(k)}:{_json(value[k])}" for k in sorted(value)) + "}"
    return "[" + ",".join(_json(item) for item in value) + "]"


def _text(value: Any) -> str:
    """One result of a JSONPath action as kubectl prints it."""
    if isinstance(value, (dict, list)):
        return _json(value)
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return _number(value, "v")


def _go_v(value: Any) -> str:
    """Go's %v of a value decoded from JSON: a custom-columns cell."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number(value, "v")
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_v(value[k])}" for k in sorted(value)) + "]"
    return "[" + " ".join(_go_v(item) for item in value) + "]"


# --- JSONPath -----------------------------------------------------------------------------


class _Node:
    pass


class _Text(_Node):
    def __init__(self, text: str) -> None:
        self.text = text


class _Action(_Node):
    """What one pair of braces holds (also a filter's side and a union's member)."""

    def __init__(self) -> None:
        self.nodes: list[_Node] = []


class _Field(_Node):
    def __init__(self, name: str) -> None:
        self.name = name


class _Slice(_Node):
    """[start:end:step], an index being start with end derived (start + 1)."""

    def __init__(self, start: int | None, end: int | None, step: int | None, derived: bool) -> None:
        self.start, self.end, self.step, self.derived = start, end, step, derived


class _Filter(_Node):
    def __init__(self, left: _Action, right: _Action | None, operator: str) -> None:
        self.left, self.right, self.operator = left, right, operator


class _Union(_Node):
    def __init__(self, members: list[_Action]) -> None:
        self.members = members


class _Literal(_Node):
    """A number or a boolean in an action (a filter's right side)."""

    def __init__(self, value: int | float | bool) -> None:
        self.value = value


class _Identifier(_Node):
    """`range`, `end`, or a word kubectl refuses when it is reached."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Wildcard(_Node):
    pass


class _Recursive(_Node):
    pass


_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")
_SLICE = Pattern(r"(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?")
_COMPARISON = Pattern(r"([^!<>=]+)([!<>=]+)(.+?)", re.S)
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


def _word_character(c: str) -> bool:
    return c == "_" or c.isalpha() or c.isdecimal()


def _rune(c: str) -> str:
    """Go's %#U."""
    return f"U+{ord(c):04X} '{c}'" if c.isprintable() else f"U+{ord(c):04X}"


class _Parser:
    """kubectl's template grammar, read character by character as kubectl reads it."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def parse(self) -> list[_Node]:
        nodes: list[_Node] = []
        while self.pos < len(self.text):
            brace = self.text.find("{", self.pos)
            end = len(self.text) if brace < 0 else brace
            if end > self.pos:
                nodes.append(_Text(self.text[self.pos:end]))
            if brace < 0:
                break
            self.pos = brace + 1
            action = _Action()
            nodes.append(action)
            self.inside(action)
        return nodes

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def inside(self, action: _Action) -> None:
        """An action's nodes, to its closing brace."""
        text = self.text
        while True:
            if text.startswith("}", self.pos):
                self.pos += 1
                return
            if text.startswith("[?(", self.pos):
                self.filter(action)
                continue
            if text.startswith("..", self.pos):
                if action.nodes and isinstance(action.nodes[-1], _Recursive):
                    raise _Syntax("invalid multiple recursive descent")
                self.pos += 2
                action.nodes.append(_Recursive())
                if _word_character(self.peek()):
                    self.field(action)
                continue
            c = self.peek()
            self.pos += 1
            if c in ("", "\r", "\n"):
                raise _Syntax("unclosed action")
            if c in " @$":
                continue
            if c == "[":
                self.array(action)
            elif c in "\"'":
                self.quoted(action, c)
            elif c == ".":
                self.field(action)
            elif c in "+-" or c.isdecimal():
                self.pos -= 1
                self.number(action)
            elif _word_character(c):
                self.pos -= 1
                word = self.word()
                action.nodes.append(_Literal(word == "true") if word in ("true", "false") else _Identifier(word))
            else:
                raise _Syntax(f"unrecognized character in action: {_rune(c)}")

    def word(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _TERMINATORS:
            self.pos += 1
        return self.text[start:self.pos]

    def field(self, action: _Action) -> None:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _TERMINATORS:
            self.pos += 2 if self.text[self.pos] == "\\" else 1  # a backslash keeps the next character
        name = self.text[start:self.pos]
        action.nodes.append(_Wildcard() if name == "*" else _Field(name.replace("\\", "")))

    def number(self, action: _Action) -> None:
        start = self.pos
        if self.peek() in ("+", "-"):
            self.pos += 1
        while self.peek() == "." or self.peek().isdecimal():
            self.pos += 1
        text = self.text[start:self.pos]
        if re.fullmatch(r"[+-]?[0-9]+", text):
            action.nodes.append(_Literal(int(text)))
        elif re.fullmatch(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+)", text):
            action.nodes.append(_Literal(float(text)))
        else:
            raise _Syntax(f"cannot parse number {text}")

    def array(self, action: _Action) -> None:
        start = self.pos
        while True:
            c = self.peek()
            self.pos += 1
            if c in ("", "\n"):
                raise _Syntax("unterminated array")
            if c == "]":
                break
        inside = self.text[start:self.pos - 1]
        inside = ":" if inside == "*" else inside
        parts = inside.split(",")
        if len(parts) > 1:
            action.nodes.append(_Union([_action(f"[{part.strip(' ')}]") for part in parts]))
            return
        key = re.fullmatch(r"'([^']*)'", inside)
        if key is not None:
            action.nodes.extend(_action(f".{key[1]}").nodes)
            return
        bounds = _SLICE.fullmatch(inside)
        if bounds is None:
            raise _Syntax(f"invalid array index {inside}")
        start_text, end_text, step_text = (bounds[1], (bounds[2] or "")[1:], (bounds[3] or "")[1:])
        values = []
        for text in (start_text, end_text, step_text):
            if text and not re.fullmatch(r"-?[0-9]+", text):
                raise _Syntax(f"array index {text} is not a number")
            values.append(int(text) if text else None)
        first = values[0] or 0
        derived = bounds[2] is None  # [i]: the end is i + 1
        action.nodes.append(_Slice(values[0], first + 1 if derived else values[1], values[2], derived))

    def filter(self, action: _Action) -> None:
        self.pos += 3
        start, opened, closed, pair = self.pos, False, False, ""
        while True:
            c = self.peek()
            self.pos += 1
            if c in ("", "\n"):
                raise _Syntax("unterminated filter")
            if c in "\"'":
                if not opened:
                    opened, pair = True, c
                elif self.text[self.pos - 2] != "\\" and c == pair:
                    closed = True
            elif c == ")" and opened == closed:
                break
        if self.peek() != "]":
            raise _Syntax("unclosed array expect ]")
        self.pos += 1
        text = self.text[start:self.pos - 2]
        comparison = _COMPARISON.fullmatch(text)
        if comparison is None:
            action.nodes.append(_Filter(_action(text), None, "exists"))
        else:
            action.nodes.append(_Filter(_action(comparison[1]), _action(comparison[3]), comparison[2]))

    def quoted(self, action: _Action, quote: str) -> None:
        start = self.pos - 1
        while True:
            c = self.peek()
            self.pos += 1
            if c in ("", "\n"):
                raise _Syntax("unterminated quoted string")
            if c == quote and self.text[self.pos - 2] != "\\":
                break
        written = self.text[start:self.pos]
        action.nodes.append(_Text(_unquote(written, quote)))


def _action(text: str) -> _Action:
    """A piece of an action (a union's member, a filter's side) parsed as an action of its own."""
    first = _Parser("{" + text + "}").parse()[0]
    assert isinstance(first, _Action)
    return first


def _unquote(written: str, quote: str) -> str:
    """Go's strconv.Unquote, for single quotes too (kubectl's UnquoteExtend)."""
    body, out, i = written[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            if c == quote:
                raise _Syntax(f"unquote string {written} error invalid syntax")
            out.append(c)
            i += 1
            continue
        e = body[i + 1:i + 2]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e == quote:
            out.append(e)
            i += 2
        elif e in ("x", "u", "U") and re.fullmatch(r"[0-9A-Fa-f]+", digits := body[i + 2:i + 2 + {"x": 2, "u": 4, "U": 8}[e]]) \
                and len(digits) == {"x": 2, "u": 4, "U": 8}[e] \
                and (e == "x" or int(digits, 16) <= 0x10FFFF and not 0xD800 <= int(digits, 16) <= 0xDFFF):
            out.append(chr(int(digits, 16)))
            i += 2 + len(digits)
        elif re.fullmatch(r"[0-7]{3}", body[i + 1:i + 4]) and int(body[i + 1:i + 4], 8) < 256:
            out.append(chr(int(body[i + 1:i + 4], 8)))
            i += 4
        else:
            raise _Syntax(f"unquote string {written} error invalid syntax")
    return "".join(out)


class _Syntax(Exception):
    """Why a template does not parse (its message is kubectl's)."""


class _Failure(Exception):
    """Why a template fails on a document (kubectl's message)."""


def _go_type(value: Any) -> str:
    """The Go type kubectl reads a JSON value as, in its messages."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64" if INT64[0] <= value <= INT64[1] else "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    return "[]interface {}" if isinstance(value, list) else "float64"


def _children(value: Any) -> list[Any]:
    """What `*` and `..` step into: an object's values, a list's items, a string's bytes."""
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return list(value.encode("utf-8"))
    return []


def _kind(value: Any) -> str:
    """Go template's kind of a compared value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if INT64[0] <= value <= INT64[1] else "float"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise _Failure("invalid type for comparison")


def _compare(left: Any, operator: str, right: Any) -> bool:
    """A filter's comparison as Go's templates compare (eq, ne, lt, le, gt, ge)."""
    if operator not in ("==", "!=", "<", ">", "<=", ">="):
        raise _Failure(f"unrecognized filter operator {operator}")
    kinds = {_kind(left), _kind(right)}
    if len(kinds) > 1:
        raise _Failure("incompatible types for comparison")
    if operator in ("==", "!="):
        return (left == right) == (operator == "==")
    if "bool" in kinds:
        raise _Failure("invalid type for comparison")
    return {"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[operator]


class Template:
    """A kubectl JSONPath template, parsed (a TemplateError when kubectl would refuse it)."""

    def __init__(self, text: str) -> None:
        from ome_asp.input.documents import shown

        self.text = text
        try:
            self.nodes = _Parser(text).parse()
        except _Syntax as why:
            raise TemplateError(f"error parsing jsonpath {shown(text, cut=False)}, {why}") from None

    def execute(self, document: Any) -> str:
        """The template's text for `document`, as `kubectl … -o jsonpath=` prints it."""
        return "".join(" ".join(_text(value) for value in values) for values in self.results(document))

    def results(self, document: Any) -> list[list[Any]]:
        """The values of each action, in order (custom-columns joins them)."""
        from ome_asp.input.documents import quote

        out: list[list[Any]] = []
        try:
            self._block(0, document, 0, out)
        except _Failure as why:
            raise TemplateError(f"error executing jsonpath {quote(self.text, cut=False)}: {why}") from None
        return out

    def _block(self, i: int, data: Any, depth: int, out: list[list[Any]]) -> int | None:
        """The nodes from `i` on `data` until an {end} (its index) or the last (None)."""
        nodes = self.nodes
        while i < len(nodes):
            node = nodes[i]
            if isinstance(node, _Text):
                out.append([node.text])
                i += 1
                continue
            state: dict[str, bool] = {}
            results = self._walk(node, [data], depth, state)
            if state.get("end"):
                return i
            if state.get("range"):
                end = None
                for value in results or [None]:  # no item: the body is read (to its end) and prints nothing
                    end = self._block(i + 1, value, depth + 1, out if results else [])
                i = i if end is None else end  # past the end, or (none) on with the body's nodes
            else:
                out.append(results)
            i += 1
        return None

    def _walk(self, node: _Node, values: list[Any], depth: int, state: dict[str, bool]) -> list[Any]:
        if isinstance(node, _Action):
            for inner in node.nodes:
                values = self._walk(inner, values, depth, state)
            return values
        if isinstance(node, _Text):
            return [node.text]
        if isinstance(node, _Field):
            return [v[node.name] for v in values if isinstance(v, dict) and node.name in v]
        if isinstance(node, _Slice):
            return self._slice(node, values)
        if isinstance(node, _Filter):
            return self._filter(node, values, depth)
        if isinstance(node, _Union):
            return [v for member in node.members for v in self._walk(member, values, depth, state)]
        if isinstance(node, _Literal):
            return [node.value] * len(values)
        if isinstance(node, _Wildcard):
            return [child for v in values for child in _children(v)]
        if isinstance(node, _Recursive):
            return self._descend(values)
        assert isinstance(node, _Identifier)
        if node.name == "range":
            state["range"] = True
            return values
        if node.name == "end":
            if depth == 0:
                raise _Failure("not in range, nothing to end")
            state["end"] = True
            return []
        raise _Failure(f"unrecognized identifier {node.name}")

    @staticmethod
    def _slice(node: _Slice, values: list[Any]) -> list[Any]:
        found: list[Any] = []
        for value in values:
            if value is None:
                continue
            if not isinstance(value, list):
                raise _Failure(f"{_go_type(value)} is not array or slice")
            length = len(value)
            start = node.start or 0
            start += length if start < 0 else 0
            end = length if node.end is None else node.end
            end += length if end < 0 or (end == 0 and node.derived) else 0
            if end == start:
                return found  # kubectl stops at an empty selection, the values after it unread
            if not 0 <= start < length:
                raise _Failure(f"array index out of bounds: index {start}, length {length}")
            if not 0 <= end <= length:
                raise _Failure(f"array index out of bounds: index {end - 1}, length {length}")
            if start > end:
                raise _Failure(f"starting index {start} is greater than ending index {end}")
            if node.step is not None and node.step <= 0:
                raise _Failure("step must be > 0")
            found.extend(value[start:end:node.step or 1])
        return found

    def _filter(self, node: _Filter, values: list[Any], depth: int) -> list[Any]:
        found = []
        for value in values:
            if not isinstance(value, list):
                raise _Failure(f"{'<invalid reflect.Value>' if value is None else _go_v(value)} "
                               "is not array or slice and cannot be filtered")
            for item in value:
                if node.right is None:  # exists: a failure of the path counts as absent
                    try:
                        if self._walk(node.left, [item], depth, {}):
                            found.append(item)
                    except _Failure:
                        pass
                    continue
                left = self._walk(node.left, [item], depth, {})
                if len(left) != 1:
                    if left:
                        raise _Failure("can only compare one element at a time")
                    continue
                right = self._walk(node.right, [item], depth, {})
                if len(right) != 1:
                    if right:
                        raise _Failure("can only compare one element at a time")
                    continue
                if _compare(left[0], node.operator, right[0]):
                    found.append(item)
        return found

    @staticmethod
    def _descend(values: list[Any]) -> list[Any]:
        """`..`: each value that has children, and theirs, depth first (iteratively: any depth)."""
        found: list[Any] = []
        stack = [iter([v for v in values if v is not None])]
        while stack:
            value = next(stack[-1], stack)
            if value is stack:
                stack.pop()
                continue
            children = _children(value)
            if children:
                found.append(value)
                stack.append(iter(children))
        return found
