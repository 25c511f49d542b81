"""Label selectors, as kubectl's `-l`/`--selector` reads them (issue 36, D-283):
`key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`,
`key` (the label exists), `!key` (it does not), `key>N`, `key<N`, joined by
commas, every requirement to hold. As Kubernetes matches them: `!=` and
`notin` hold for an object without the label; `>` and `<` need a label whose
value is an integer. Keys and values are checked as Kubernetes checks label
keys and values, and an error names the selector.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ome_asp.errors import UsageError
from ome_asp.input.documents import quote
from ome_asp.patterns import Pattern

Labels = Mapping[str, str]

_TOKEN = Pattern(r"\s*(?:(!=|==|[!=(),<>])|([^\s!=(),<>]+))")
_NAME = Pattern(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
_PREFIX = Pattern(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_INTEGER = Pattern(r"[+-]?[0-9]+")
_NAME_RULE = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
              "alphanumeric character")

Requirement = Callable[[Labels], bool]


def parse(text: str) -> Requirement:
    """The selector `text` as a predicate over an object's labels (UsageError naming it when it does not parse)."""
    try:
        requirements = _Parser(text).selector()
    except _Invalid as why:
        raise UsageError(f"-l {quote(text)}: unable to parse requirement: {why}") from None
    return lambda labels: all(requirement(labels) for requirement in requirements)


class _Invalid(Exception):
    pass


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []  # (kind: "op" | "word", text)
        position, text = 0, text.rstrip()
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None:  # only trailing blanks, removed above
                raise _Invalid(f"unexpected {quote(text[position:])}")
            self.tokens.append(("op", match[1]) if match[1] else ("word", match[2]))
            position = match.end()
        self.at = 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.at += 1
        return token

    def selector(self) -> list[Requirement]:
        if not self.tokens:
            return []  # the empty selector selects everything
        requirements = [self.requirement()]
        while self.peek()[0] != "end":
            kind, found = self.take()
            if (kind, found) != ("op", ","):
                raise _Invalid(f"found {quote(found)}, expected: ',' or 'end of string'")
            requirements.append(self.requirement())
        return requirements

    def requirement(self) -> Requirement:
        kind, found = self.take()
        if (kind, found) == ("op", "!"):
            key = self.key()
            return lambda labels: key not in labels
        if kind != "word":
            raise _Invalid(f"found {quote(found or 'end of string')}, expected: !, identifier, or 'end of string'")
        key = _key(found)
        kind, operator = self.peek()
        if kind == "end" or (kind, operator) == ("op", ","):
            return lambda labels: key in labels
        self.take()
        if operator in ("=", "==", "!="):
            value = _value(self.take()[1] if self.peek()[0] == "word" else "")
            if operator == "!=":
                return lambda labels: labels.get(key) != value
            return lambda labels: labels.get(key) == value
        if operator in ("<", ">"):
            word = self.take()[1]
            if not _INTEGER.fullmatch(word):
                raise _Invalid(f"for 'Gt', 'Lt' operators, the value must be an integer: {quote(word)}")
            bound = int(word)
            return lambda labels: key in labels and _INTEGER.fullmatch(labels[key]) is not None and (
                int(labels[key]) > bound if operator == ">" else int(labels[key]) < bound)
        if (kind, operator) in (("word", "in"), ("word", "notin")):
            values = self.values()
            if operator == "in":
                return lambda labels: labels.get(key) in values
            return lambda labels: labels.get(key) not in values
        raise _Invalid(f"found {quote(operator)}, expected: in, notin, =, ==, !=, gt, lt")

    def key(self) -> str:
        kind, found = self.take()
        if kind != "word":
            raise _Invalid(f"found {quote(found or 'end of string')}, expected: identifier after '!'")
        return _key(found)

    def values(self) -> frozenset[str]:
        """`(a, b)`; an empty member (`(a,)`) is the empty value, an empty set an error."""
        if self.take() != ("op", "("):
            raise _Invalid("expected '(' after in or notin")
        if self.peek() == ("op", ")"):
            raise _Invalid("for 'in', 'notin' operators, values set can't be empty")
        values = set()
        while True:
            kind, found = self.peek()
            if kind == "word":
                self.take()
            values.add(_value(found) if kind == "word" else "")
            kind, found = self.take()
            if (kind, found) == ("op", ")"):
                return frozenset(values)
            if (kind, found) != ("op", ","):
                raise _Invalid(f"found {quote(found or 'end of string')}, expected: ',' or ')'")


def _key(text: str) -> str:
    """A label key as Kubernetes validates one: [prefix/]name."""
    prefix, slash, name = text.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _PREFIX.fullmatch(prefix)):
        raise _Invalid(f"invalid label key {quote(text)}: prefix part must be a lowercase RFC 1123 subdomain")
    if not name or len(name) > 63 or not _NAME.fullmatch(name):
        raise _Invalid(f"invalid label key {quote(text)}: name part {_NAME_RULE}, at most 63 characters")
    return text


def _value(text: str) -> str:
    if len(text) > 63 or not _NAME.fullmatch(text):
        raise _Invalid(f"invalid label value {quote(text)}: a valid label must be an empty string or {_NAME_RULE[5:]}, "
                       "at most 63 characters")
    return text
