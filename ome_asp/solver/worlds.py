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
- a rule whose body has no positive atom (an encoding's fact, a body of
  negative literals, comparisons or aggregates only) gets the guard
  `world(W)`, so `W` is bound (safe) and ranges over the batch's worlds;
- `#show p/n` becomes `#show p/n+1`, `#show t : body` gets `W` in `t`;
  `#defined p/n` becomes `p/n+1`; a `#minimize` element gets `W` in its
  tuple, so equal weights of two worlds never merge.
Every rule instance then mentions one world only, so the ground program is
the disjoint union of the worlds' programs: no atom of world 1 occurs in a
rule instance of world 2, and each world's answer set is the one its case
has alone.

`python -m ome_asp.solver.worlds FILE...` prints the rewritten encoding, so a
batch replays with plain clingo: that text plus the worlds' facts.
"""

from __future__ import annotations

import atexit
import re
import sys
from pathlib import Path

import clingo
from clingo import ast

from ome_asp.errors import Exit
from ome_asp.solver import engine
from ome_asp.solver.programs import Variant, encoding_dir

WORLD = "World"  # the variable the rewrite adds; the encoding must not use it
_GUARD = "world"


class _AddWorld(ast.Transformer):
    """Puts the world variable first in every atom it visits."""

    def __init__(self, location) -> None:
        self.world = ast.Variable(location, WORLD)

    def visit_SymbolicAtom(self, atom):
        atom = atom.update(**self.visit_children(atom))  # its variables: none may be the world's
        return atom.update(symbol=self._term(atom.symbol))

    def visit_Variable(self, variable):
        if variable.name == WORLD:
            raise ValueError(f"{variable.location.begin.filename}: the variable {WORLD} is the world rewrite's")
        return variable

    def _term(self, term):
        if term.ast_type == ast.ASTType.UnaryOperation:  # classical negation: -p(X)
            return term.update(argument=self._term(term.argument))
        if term.ast_type == ast.ASTType.Pool:  # p(a;b): each alternative
            return term.update(arguments=[self._term(t) for t in term.arguments])
        if term.ast_type == ast.ASTType.Function:
            return term.update(arguments=[self.world, *term.arguments])
        raise ValueError(f"{term.location.begin.filename}: an atom the world rewrite cannot extend: {term}")


def _binds_world(body) -> bool:
    """A positive atom in the body binds the world variable (every atom has it)."""
    return any(
        lit.ast_type == ast.ASTType.Literal and lit.sign == ast.Sign.NoSign
        and lit.atom.ast_type == ast.ASTType.SymbolicAtom
        for lit in body
    )


def _guarded(body, location) -> list:
    if _binds_world(body):
        return list(body)
    guard = ast.SymbolicAtom(ast.Function(location, _GUARD, [ast.Variable(location, WORLD)], 0))
    return [ast.Literal(location, ast.Sign.NoSign, guard), *body]


def rewrite(statement):
    """The statement with a world term in every predicate (module docstring)."""
    kind = statement.ast_type
    location = statement.location
    add = _AddWorld(location)
    if kind == ast.ASTType.Rule:
        body = [add(lit) for lit in statement.body]
        return statement.update(head=add(statement.head), body=_guarded(body, location))
    if kind == ast.ASTType.ShowSignature:
        return statement.update(arity=statement.arity + 1)
    if kind == ast.ASTType.Defined:
        return statement.update(arity=statement.arity + 1)
    if kind == ast.ASTType.ShowTerm:
        body = [add(lit) for lit in statement.body]
        return statement.update(term=add._term(statement.term), body=_guarded(body, location))
    if kind == ast.ASTType.Minimize:
        body = [add(lit) for lit in statement.body]
        return statement.update(terms=[add.world, *statement.terms], body=_guarded(body, location))
    if kind == ast.ASTType.Program:
        return statement
    raise ValueError(f"{location.begin.filename}: the world rewrite does not handle {kind}")


# The rewritten statements of each encoding file, parsed and rewritten once
# per process (serve and the batch commands ground batch after batch).
_compiled: dict[str, list] = {}
atexit.register(_compiled.clear)  # free them before clingo's library is gone (engine.py)


def compiled(name: str) -> list:
    """The rewritten statements of encoding/`name`."""
    path = str(encoding_dir() / name)  # keyed by path: programs.using_encoding may change the directory
    if path not in _compiled:
        _compiled[path] = [rewrite(s) for s in engine.statements(path)]
    return _compiled[path]


def compile_all() -> None:
    """Rewrite every file the batch programs load now (a process about to
    fork workers does, so they inherit it)."""
    for name in Variant.BATCH_SELECT.files + Variant.ADMIT.files:
        compiled(name)


def load(ctl: clingo.Control, files: tuple[str, ...]) -> None:
    """Add the rewritten `files` of encoding/ to `ctl`."""
    with ast.ProgramBuilder(ctl) as builder:
        for name in files:
            for statement in compiled(name):
                builder.add(statement)


def declaration() -> str:
    """`world/1`, which the guards read and only Python's facts define."""
    return f"#defined {_GUARD}/1.\n"


# A fact line of `Facts.program` (facts.py) starts with the predicate's name
# and its opening parenthesis: the name is ours, never user text, and user
# strings cannot hold a line break (clingo prints it as \n), so a line's first
# parenthesis is always its fact's. A fact without arguments, `p().`, gets
# `p(W,).` first, which _NO_ARGUMENTS mends (anchored at a line's start, where
# no tuple argument can stand).
_NO_ARGUMENTS = re.compile(r"^(\w+\(\d+),\)", re.MULTILINE)


def world_facts(program: str, world: int) -> str:
    """`world(W).` and each fact of `program` (facts.py's text) with `W` first."""
    w = str(int(world))
    # str.replace line by line: several times faster than a regex calling back per fact
    text = "\n".join([line.replace("(", f"({w},", 1) for line in program.split("\n")])
    return f"{_GUARD}({w}).\n" + (_NO_ARGUMENTS.sub(r"\1)", text) if ",)" in text else text)


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
    names = [Path(a).name for a in argv] or list(Variant.EXPLAIN.files)
    sys.stdout.write(declaration())
    for name in names:
        sys.stdout.write(f"% --- {name}, one world per case\n")
        for statement in compiled(name):
            sys.stdout.write(f"{statement}\n")
    return Exit.OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
