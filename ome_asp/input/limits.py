"""Bounds on what one run may consume: input bytes, YAML alias expansion, solving time.

Each bound exists so that hostile or accidental input ends in one clear
`error:` line instead of exhausting memory or hanging (docs/reliability.md
gives the reasons for each default).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:  # the loader uses this module too, and needs no solver
    import clingo

from ome_asp.errors import InputError, OmeAspError
from ome_asp.patterns import Pattern

#: All input files and stdin together. A single YAML document (a `kind: List`
#: dump) takes about 45 bytes of memory per input byte while it is read, so
#: 64 MiB is about 3 GB; raise with --max-input-size.
MAX_INPUT_BYTES = 64 * 2**20

#: Inputs are read in pieces of this size (never the whole limit at once).
READ_CHUNK = 2**24

#: Aliases may expand a document to this many YAML nodes, or to ten times the
#: nodes written, whichever is larger. A "billion laughs" document exceeds it
#: by orders of magnitude; a manifest that reuses an anchored entry does not.
ALIAS_EXPANSION_FLOOR = 100_000
ALIAS_EXPANSION_FACTOR = 10

#: Solving one explain takes about a second at 1,000 runtimes (docs/design.md).
SOLVE_TIMEOUT_S = 60.0
#: How long kubectl may run (--kubectl-timeout): a `get -A` of thousands of
#: objects takes seconds; a kubectl that hangs (an exec plugin waiting for a
#: login, a server that accepts and never answers) must not hang ome-asp.
KUBECTL_TIMEOUT_S = 60.0

_BINARY_SUFFIXES = {"": 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
_BYTE_SIZE = Pattern(r"([0-9]+)(Ki|Mi|Gi)?")


class SolveTimeout(OmeAspError):
    """Solving took longer than the bound."""


def parse_byte_size(text: str) -> int:
    """`--max-input-size`: bytes, or a Kubernetes binary quantity (`512Mi`, `1Gi`)."""
    match = _BYTE_SIZE.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (use bytes or a quantity such as 512Mi or 1Gi)")
    return int(match[1]) * _BINARY_SUFFIXES[match[2] or ""]


def format_byte_size(size: int) -> str:
    for suffix in ("Gi", "Mi", "Ki"):
        if size and size % _BINARY_SUFFIXES[suffix] == 0:
            return f"{size // _BINARY_SUFFIXES[suffix]}{suffix}"
    return f"{size} bytes"


class InputBudget:
    """The bytes all inputs of one run may still take (MAX_INPUT_BYTES by default)."""

    def __init__(self, max_bytes: int = MAX_INPUT_BYTES) -> None:
        self.max_bytes = max_bytes
        self.left = max_bytes

    def read(self, stream: IO[Any], label: str) -> bytes:
        # One byte more than allowed tells "exactly at the limit" from "over it".
        # Read in pieces: `read(n)` allocates n bytes up front, and the limit
        # may be far beyond free memory (--max-input-size 2^63, issue 18).
        pieces, size = [], 0
        while size <= self.left and (piece := stream.read(min(READ_CHUNK, self.left + 1 - size))):
            if isinstance(piece, str):
                # A text stream was decoded already; surrogates it holds (undecodable
                # input) are passed through so the UTF-8 check reports them.
                piece = piece.encode("utf-8", "surrogatepass")
            pieces.append(piece)
            size += len(piece)
        self.take(size, label)
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)

    def take(self, size: int, label: str) -> None:
        """`size` bytes of `label` taken from what is left, or an error."""
        if size > self.left:
            raise InputError(
                f"{label}: the input is larger than {format_byte_size(self.max_bytes)} in total; "
                "raise the limit with --max-input-size"
            )
        self.left -= size


def check_alias_expansion(root: yaml.Node) -> tuple[yaml.Node, str] | None:
    """(the node at fault, why) when the document rooted at `root` is refused
    for its aliases; None when it is not.

    Counts the nodes with every alias expanded without expanding anything:
    each distinct node is visited once and its expanded size memoized, so a
    document of 10^9 expanded nodes costs as much as its written size.
    """
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
        elif key not in sizes:
            if key in on_path:
                return node, "a YAML alias refers to a node that contains it"
            on_path.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
    written, expanded = len(sizes), sizes[id(root)]
    limit = max(ALIAS_EXPANSION_FLOOR, ALIAS_EXPANSION_FACTOR * written)
    if expanded > limit:
        return root, f"YAML aliases expand the document from {written} to {expanded} nodes (limit: {limit})"
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return []


def solve_bounded(
    ctl: clingo.Control, on_model: Callable[[clingo.Model], None], seconds: float = SOLVE_TIMEOUT_S
) -> clingo.SolveResult:
    """`ctl.solve(on_model=...)`, cancelled with SolveTimeout after `seconds`.

    Solving runs in clingo's own thread; this one waits on it, so the bound
    holds however long a single step of the search takes. `on_model` runs in
    the solving thread and must copy what it keeps (`model.symbols(...)`).
    """
    with ctl.solve(on_model=on_model, async_=True) as handle:
        if not handle.wait(seconds):
            handle.cancel()
            raise SolveTimeout(f"solving did not finish within {seconds:g} s")
        return handle.get()

