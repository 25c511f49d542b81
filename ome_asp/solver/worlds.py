"""Worlds: many independent cases in one grounding (issue 12, docs/decisions.md D-49).

encoding/*.lp is written for one cluster. `compiled` rewrites its parsed
statements (clingo.ast) so that every predicate carries a leading *world*
term: `examined(Q, R)` becomes `examined(W, Q, R)`, `switch(N, V)` becomes
`switch(W, N, V)`. A world is one case: its own objects, its own profile
switches and its own queries. Python emits `world(W).` and each fact of the
case with `W` first (`world_facts`); ask.ask_worlds grounds all worlds
together and decodes the shown atoms world by world with the one decoder of
answer.py (`split_worlds`, `answer.decode_texts`).

What the rewrite touches (and why it is sound, D-49):
- every atom (`SymbolicAtom`) in a rule's head, body, conditions and
  aggregate elements gets `W` first; terms that are not atoms (`sig(N)`,
  `val(K, D)`, reason terms) are untouched;
- except the atoms of the *world-free* predicates (D-130): the value tables
  (facts.VALUE_TABLES: signatures, weights, versions, size gaps, facts of
  values that every world of a batch reads alike, ranks and identifiers
  being batch-wide) and every predicate derived from them and from the
  encoding's own constants alone (`world_free`). Their facts come once per
  batch, not once per world, and their rules ground once. A row of a value
  table says something of its own values only (input.lp), so the union of
  the worlds' tables serves each world: a row of another world is never
  joined (as for compare's versions of a cluster, facts.VALUE_TABLES);
- a rule with a world term and no positive atom that binds it (an
  encoding's fact, a body of negative literals, comparisons, aggregates or
  world-free atoms only) gets the guard `world(W)`, so `W` is bound (safe)
  and ranges over the batch's worlds;
- `#show p/n` becomes `#show p/n+1`, `#show t : body` gets `W` in `t`;
  `#defined p/n` becomes `p/n+1` (a world-free one stays); a `#minimize`
  element gets `W` in its tuple, so equal weights of two worlds never merge;
- the profile switches are a world's own, but the same for every world of
  a profile: a world has the one fact `world_profile(W, P)` and the batch
  `profile_switch(P, Name, Value)` once per profile (`declaration`).
Every other rule instance then mentions one world only, so the ground
program is the world-free part and, above it, the disjoint union of the
worlds' programs: no atom of world 1 occurs in a rule instance of world 2,
and each world's answer set is the one its case has alone.

`python -m ome_asp.solver.worlds FILE...` prints the rewritten encoding, so a
batch replays with plain clingo: that text plus the worlds' facts.
"""

from __future__ import annotations

import atexit
import copy
import re
import sys
from pathlib import Path

import clingo
from clingo import ast

from ome_asp.errors import Exit, InternalError
from ome_asp.solver import engine
from ome_asp.solver.facts import VALUE_TABLES, Facts
from ome_asp.solver.programs import Variant, encoding_dir

WORLD = "World"  # the variable the rewrite adds; the encoding must not use it
_GUARD = "world"
_T = ast.ASTType
# A variable named WORLD in a statement's text, its strings taken out first
_USES_WORLD = re.compile(rf"\b{WORLD}\b")
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')


Predicate = tuple[str, int]  # name, arity


def _predicates(term) -> list[Predicate]:
    """The predicates of an atom's symbol (a pool `p(a;b)` holds several)."""
    if term.ast_type == ast.ASTType.UnaryOperation:  # classical negation: -p(X)
        return _predicates(term.argument)
    if term.ast_type == ast.ASTType.Pool:
        return [p for t in term.arguments for p in _predicates(t)]
    if term.ast_type == ast.ASTType.Function:
        return [(term.name, len(term.arguments))]
    raise ValueError(f"{term.location.begin.filename}: an atom the world rewrite cannot extend: {term}")


def _with(node, **changes):
    """`node.update(**changes)`, made as a copy whose changed attributes are
    set: update reads every other attribute and builds the node anew, each
    a C call (a third of the rewrite's time)."""
    new = copy.copy(node)
    for key, value in changes.items():
        setattr(new, key, value)
    return new


def _map_atoms(node, change):
    """`node` (a rule's head, a body literal, or a part of them) with each
    atom replaced by `change(atom)`, the same node where nothing changed.
    Only the parts that can hold atoms are entered, never a term (clingo.ast
    reads each node through a C call: a Transformer visiting every variable
    made the rewrite cost ~0.3 s a process, issue 40)."""
    kind = node.ast_type
    if kind == _T.SymbolicAtom:
        return change(node)
    if kind == _T.Literal:
        atom = _map_atoms(node.atom, change)
        return node if atom is node.atom else _with(node, atom=atom)
    if kind in (_T.Comparison, _T.BooleanConstant):
        return node
    if kind == _T.ConditionalLiteral:
        literal, condition = _map_atoms(node.literal, change), _map_all(node.condition, change)
        if literal is node.literal and condition is None:
            return node
        return _with(node, literal=literal, condition=node.condition if condition is None else condition)
    if kind in (_T.BodyAggregate, _T.Aggregate, _T.Disjunction, _T.HeadAggregate):
        elements = _map_all(node.elements, change)
        return node if elements is None else _with(node, elements=elements)
    if kind == _T.BodyAggregateElement:
        condition = _map_all(node.condition, change)
        return node if condition is None else _with(node, condition=condition)
    if kind == _T.HeadAggregateElement:
        literal = _map_atoms(node.condition, change)
        return node if literal is node.condition else _with(node, condition=literal)
    raise ValueError(f"{node.location.begin.filename}: the world rewrite does not handle {kind}")


def _map_all(nodes, change) -> list | None:
    """`_map_atoms` of each node; None where none changed."""
    old = list(nodes)
    new = [_map_atoms(node, change) for node in old]
    return None if all(a is b for a, b in zip(new, old)) else new


class _AddWorld:
    """Puts the world variable first in every atom of a node, but those of
    the world-free predicates `free`; `used` tells whether it put any."""

    def __init__(self, location, free: frozenset[Predicate] = frozenset()) -> None:
        self.world = ast.Variable(location, WORLD)
        self.free = free
        self.used = False

    def __call__(self, node):
        return _map_atoms(node, self._atom)

    def _atom(self, atom):
        if self.free and all(p in self.free for p in _predicates(atom.symbol)):
            return atom
        self.used = True
        return _with(atom, symbol=self._term(atom.symbol))

    def _term(self, term):
        if term.ast_type == ast.ASTType.UnaryOperation:  # classical negation: -p(X)
            return _with(term, argument=self._term(term.argument))
        if term.ast_type == ast.ASTType.Pool:  # p(a;b): each alternative
            return _with(term, arguments=[self._term(t) for t in term.arguments])
        if term.ast_type == ast.ASTType.Function:
            return _with(term, arguments=[self.world, *term.arguments])
        raise ValueError(f"{term.location.begin.filename}: an atom the world rewrite cannot extend: {term}")


def _binds_world(body, free: frozenset[Predicate]) -> bool:
    """A positive atom in the body with a world term binds the world variable."""
    return any(
        lit.ast_type == ast.ASTType.Literal and lit.sign == ast.Sign.NoSign
        and lit.atom.ast_type == ast.ASTType.SymbolicAtom
        and not all(p in free for p in _predicates(lit.atom.symbol))
        for lit in body
    )


def _guarded(body, location, free: frozenset[Predicate] = frozenset()) -> list:
    if _binds_world(body, free):
        return list(body)
    guard = ast.SymbolicAtom(ast.Function(location, _GUARD, [ast.Variable(location, WORLD)], 0))
    return [ast.Literal(location, ast.Sign.NoSign, guard), *body]


def rewrite(statement, free: frozenset[Predicate] = frozenset()):
    """The statement with a world term in every predicate but the
    world-free ones `free` (module docstring)."""
    kind = statement.ast_type
    location = statement.location
    if _USES_WORLD.search(_STRINGS.sub("", str(statement))):
        raise ValueError(f"{location.begin.filename}: the variable {WORLD} is the world rewrite's")
    add = _AddWorld(location, free)
    if kind == ast.ASTType.Rule:
        body = [add(lit) for lit in statement.body]
        head = add(statement.head)
        if not add.used:  # a rule of world-free predicates: once for the batch
            return statement
        return _with(statement, head=head, body=_guarded(body, location, free))
    if kind in (ast.ASTType.ShowSignature, ast.ASTType.Defined):
        if (statement.name, statement.arity) in free:
            return statement
        return _with(statement, arity=statement.arity + 1)
    if kind == ast.ASTType.ShowTerm:
        body = [add(lit) for lit in statement.body]
        return _with(statement, term=add._term(statement.term), body=_guarded(body, location, free))
    if kind == ast.ASTType.Minimize:
        body = [add(lit) for lit in statement.body]
        return _with(statement, terms=[add.world, *statement.terms], body=_guarded(body, location, free))
    if kind == ast.ASTType.Program:
        return statement
    raise ValueError(f"{location.begin.filename}: the world rewrite does not handle {kind}")


def _atoms(node) -> list[Predicate]:
    """The predicates of every atom in `node` (a head, a body literal)."""
    found: list[Predicate] = []

    def record(atom):
        found.extend(_predicates(atom.symbol))
        return atom

    _map_atoms(node, record)
    return found


Shape = tuple[str, list[Predicate], list[Predicate]]  # what world_free reads of a statement


def _shape(statement) -> Shape:
    """A statement as world_free reads it: its kind (`rule`, `choice`,
    `shown`, `other`), the predicates it defines or shows, and those of every
    atom in it (a rule's head's among them)."""
    kind = statement.ast_type
    if kind == _T.Rule:
        head = _atoms(statement.head)
        body = [p for lit in statement.body for p in _atoms(lit)]
        return ("rule" if statement.head.ast_type == _T.Literal else "choice", head, head + body)
    if kind in (_T.ShowSignature, _T.Defined):
        declared = [(statement.name, statement.arity)]
        return ("shown" if kind == _T.ShowSignature else "other", declared, declared)
    if kind in (_T.ShowTerm, _T.Minimize):
        read = [p for lit in statement.body for p in _atoms(lit)]
        return ("shown" if kind == _T.ShowTerm else "other", read, read)
    return ("other", [], [])


def world_free(statements: list) -> frozenset[Predicate]:
    """The world-free predicates of a program (D-130): the value tables
    (facts.VALUE_TABLES) and every predicate each of whose rules reads only
    world-free predicates -- or none, as the encoding's own facts
    (`side(format; framework).`). A shown predicate, one a show statement
    reads, a choice, and every other input (the objects, queries, switches,
    world/1) have a world; so has each predicate a rule derives from one
    that has. The world-free part is thus a program of its own below every
    world's, the same for each."""
    return _world_free([_shape(s) for s in statements])


def _world_free(shapes: list[Shape]) -> frozenset[Predicate]:
    rules = [(head, atoms) for kind, head, atoms in shapes if kind in ("rule", "choice")]
    worldly: set[Predicate] = {p for kind, head, _ in shapes if kind in ("choice", "shown") for p in head}
    defined = {p for head, _ in rules for p in head}
    every = {p for _, atoms in rules for p in atoms}
    worldly |= {p for p in every - defined if p[0] not in VALUE_TABLES}
    changed = True
    while changed:
        changed = False
        for head, atoms in rules:
            if any(p in worldly for p in atoms) and not worldly.issuperset(head):
                worldly.update(head)
                changed = True
    tables = {p for p in every if p[0] in VALUE_TABLES}
    if tables & worldly:  # the facts come once per batch: no rule may make them a world's
        raise InternalError(f"value tables with a world: {sorted(tables & worldly)}")
    return frozenset(every - worldly)


# Each encoding file's statements and their shapes, read once per process,
# and its rewritten statements for the world-free predicates it mentions of
# the files loaded with it: serve and the batch commands ground batch after
# batch, and the batch variants share most files (one rewrite each).
_read: dict[str, tuple[list, list[Shape], frozenset[Predicate]]] = {}
_compiled: dict[tuple[str, frozenset[Predicate]], list] = {}
_free: dict[tuple[str, tuple[str, ...]], frozenset[Predicate]] = {}
atexit.register(_compiled.clear)  # free them before clingo's library is gone (engine.py)
atexit.register(_read.clear)


def _paths(files: tuple[str, ...]) -> list[str]:
    directory = encoding_dir()  # keyed by path: programs.using_encoding may change the directory
    return [str(directory / name) for name in files]


def _file(path: str) -> tuple[list, list[Shape], frozenset[Predicate]]:
    """An encoding file's statements, their shapes and every predicate they mention."""
    if path not in _read:
        statements = engine.statements(path)
        shapes = [_shape(s) for s in statements]
        _read[path] = (statements, shapes, frozenset(p for _, _, atoms in shapes for p in atoms))
    return _read[path]


def free_in(files: tuple[str, ...]) -> frozenset[Predicate]:
    """`world_free` of the program of these files of encoding/."""
    key = (str(encoding_dir()), files)
    if key not in _free:
        _free[key] = _world_free([shape for path in _paths(files) for shape in _file(path)[1]])
    return _free[key]


def _rewritten(path: str, free: frozenset[Predicate]) -> list:
    statements, _, mentioned = _file(path)
    key = (path, free & mentioned)  # a statement's rewrite reads only what it mentions
    if key not in _compiled:
        _compiled[key] = [rewrite(s, key[1]) for s in statements]
    return _compiled[key]


def compiled(files: tuple[str, ...]) -> list:
    """The rewritten statements of these files of encoding/, loaded together."""
    free = free_in(files)
    return [statement for path in _paths(files) for statement in _rewritten(path, free)]


def compile_all() -> None:
    """Rewrite the programs of every batch variant now (a process about to
    fork workers does, so they inherit it)."""
    for variant in (Variant.BATCH_EXPLAIN, Variant.BATCH_SELECT, Variant.BATCH_RANK, Variant.ADMIT):
        compiled(variant.files)


def load(ctl: clingo.Control, files: tuple[str, ...]) -> None:
    """Add the rewritten `files` of encoding/ to `ctl`."""
    with ast.ProgramBuilder(ctl) as builder:
        for statement in compiled(files):
            builder.add(statement)


def declaration() -> str:
    """`world/1`, which the guards read, and each world's switches, those of
    its profile: both follow from its world_profile/2 fact (only Python's
    facts define them)."""
    return (f"#defined {_GUARD}/1.\n#defined world_profile/2.\n#defined profile_switch/3.\n"
            f"{_GUARD}({WORLD}) :- world_profile({WORLD},_).\n"
            f"switch({WORLD},Name,Value) :- world_profile({WORLD},P), profile_switch(P,Name,Value).\n")


# A fact line of `Facts.program` (facts.py) starts with the predicate's name
# and its opening parenthesis: the name is ours, never user text, and user
# strings cannot hold a line break (clingo prints it as \n), so a line's first
# parenthesis is always its fact's. A fact without arguments, `p().`, gets
# `p(W,).` first, which _NO_ARGUMENTS mends (anchored at a line's start, where
# no tuple argument can stand).
_NO_ARGUMENTS = re.compile(r"^(\w+\(\d+),\)", re.MULTILINE)


def world_facts(program: str, world: int, profile: int | None = None) -> str:
    """Each fact of `program` (facts.py's text) with `W` first, and
    `world(W).`; with the number of its `profile` in the batch,
    `world_profile(W, P).` instead, which implies world(W) and its switches
    (batch_program: a world's facts have none, facts.FactBuilder)."""
    w = str(int(world))
    # str.replace line by line: several times faster than a regex calling back per fact
    text = "\n".join([line.replace("(", f"({w},", 1) for line in program.split("\n")])
    text = _NO_ARGUMENTS.sub(r"\1)", text) if ",)" in text else text
    return text + (f"{_GUARD}({w}).\n" if profile is None else f"world_profile({w},{int(profile)}).\n")


def batch_program(batch: list[Facts]) -> str:
    """The facts of a batch of worlds, world W being batch[W]: the value
    tables once (world-free: facts.build_world_facts built them for the
    whole batch), each profile's switches once, each world's own facts."""
    tables = {facts.values for facts in batch}
    values = tables.pop() if len(tables) == 1 else None
    if values is None:
        raise InternalError("the worlds of a batch need facts built together (facts.build_world_facts)")
    profiles: dict[tuple, int] = {}
    own = []
    for w, facts in enumerate(batch):
        switches = tuple(facts.profile.facts()) if facts.profile is not None else ()
        own.append(world_facts(facts.program, w, profiles.setdefault(switches, len(profiles) + 1)))
    shared = "".join(f"profile_switch({p},{name},{value}).\n" for switches, p in profiles.items() for name, value in switches)
    return declaration() + values.program + shared + "".join(own)


def split_worlds(texts: list[str]) -> dict[int, list[str]]:
    """Shown atoms as clingo prints them (`name(W,args)`), grouped by world,
    the world term taken out (`name(args)`), in one pass."""
    worlds: dict[int, list[str]] = {}
    for text in texts:
        open_ = text.index("(")
        comma = text.find(",", open_)
        if comma < 0:  # the world was the only argument
            worlds.setdefault(int(text[open_ + 1:-1]), []).append(text[:open_])
            continue
        world = int(text[open_ + 1:comma])
        atoms = worlds.get(world)
        if atoms is None:
            atoms = worlds[world] = []
        atoms.append(text[:open_ + 1] + text[comma + 1:])
    return worlds


def main(argv: list[str]) -> int:
    """Print the rewritten encoding files (default: every file main.lp includes)."""
    names = tuple(Path(a).name for a in argv) or Variant.EXPLAIN.files
    free = free_in(names)
    sys.stdout.write(declaration())
    for name, path in zip(names, _paths(names)):
        sys.stdout.write(f"% --- {name}, one world per case\n")
        for statement in _rewritten(path, free):
            sys.stdout.write(f"{statement}\n")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
