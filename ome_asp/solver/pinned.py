"""The worlds of `ome-asp find` (issue 14): each a copy of an encoding pinned
to its own world constant, its extreme aggregates compiled for chosen inputs.

worlds.py's rewrite (D-49) gives every atom a world variable, so one copy of
the rules serves every world. find needs a copy per world: its two worlds
may run different encodings (`--differ-encoding`), so each file is
rewritten by `worlds.rewrite` and its world variable then replaced by the
world's number (`world(N)` guards included). `#show` statements are left
out (find shows what it reads) and an optimization statement is refused (a
sum over worlds is not what any one world optimizes).

find's input facts are not facts: the solver chooses them. An assignment
`X = #max{ T, ... : C }` (or `#min`) in a rule body then grounds one instance
per possible value and per possible element, ten times the grounding of the
rest of the encoding; so before the rewrite each is compiled into its
definition -- the candidates, those beaten by a better candidate of the same
key, and the one not beaten. This means the same as the aggregate wherever a
rule's body makes the set non-empty, as every such rule of the encoding
does (an empty #max would be #inf). On facts both forms ground alike.
"""

from __future__ import annotations

import re
from pathlib import Path

import clingo
from clingo import ast

from ome_asp.errors import InternalError
from ome_asp.solver import engine, worlds


class _Pin(ast.Transformer):
    """worlds.rewrite's world variable as the constant `world`."""

    def __init__(self, world: int) -> None:
        self._world = clingo.Number(world)

    def visit_Variable(self, variable):
        if variable.name == worlds.WORLD:
            return ast.SymbolicTerm(variable.location, self._world)
        return variable


class _Variables(ast.Transformer):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Variable(self, variable):
        if variable.name != "_":
            self.names.add(variable.name)
        return variable


def _variables(*nodes) -> set[str]:
    found = _Variables()
    for node in nodes:
        found(node)
    return found.names


_EXTREMES = {ast.AggregateFunction.Max: ">", ast.AggregateFunction.Min: "<"}


def _without_extreme_aggregates(rule, name: str) -> list[str] | None:
    """The rule as program text without its #max/#min assignment, or None
    when it has none (see the module's docstring)."""
    if rule.ast_type != ast.ASTType.Rule:
        return None
    for position, literal in enumerate(rule.body):
        atom = literal.atom if literal.ast_type == ast.ASTType.Literal else None
        if (atom is None or atom.ast_type != ast.ASTType.BodyAggregate or literal.sign != ast.Sign.NoSign
                or atom.function not in _EXTREMES or atom.right_guard is not None or atom.left_guard is None
                or atom.left_guard.comparison != ast.ComparisonOperator.Equal
                or atom.left_guard.term.ast_type != ast.ASTType.Variable):
            continue
        rest = [str(b) for i, b in enumerate(rule.body) if i != position]
        outer = _variables(*(b for i, b in enumerate(rule.body) if i != position))
        inner = _variables(rule.head, *atom.elements)
        key = sorted(outer & inner)
        result = atom.left_guard.term.name
        candidate, beaten = name, f"{name}_beaten"

        def args(last: str) -> str:
            return ", ".join([*key, last])

        texts = []
        for element in atom.elements:
            # The candidates need the rule's other literals only to bind the key.
            binding = [c for c in element.condition if c.ast_type == ast.ASTType.Literal
                       and c.sign == ast.Sign.NoSign and c.atom.ast_type == ast.ASTType.SymbolicAtom]
            body = ([] if set(key) <= _variables(*binding) else rest) + [str(c) for c in element.condition]
            texts.append(f"{candidate}({args(str(element.terms[0]))}) :- {', '.join(body)}.")
        texts.append(f"{beaten}({args('FIND_T')}) :- {candidate}({args('FIND_T')}), {candidate}({args('FIND_U')}), "
                     f"FIND_U {_EXTREMES[atom.function]} FIND_T.")
        texts.append(f"{rule.head} :- {', '.join([f'{candidate}({args(result)})', f'not {beaten}({args(result)})'] + rest)}.")
        # Implied (a finite non-empty set of terms has a best one), so it
        # changes no answer set; stated, it spares the solver proving it by
        # search over the subsets of the possible candidates.
        key_args = ", ".join(key)
        texts.append(f"{name}_best({key_args}) :- {candidate}({args('FIND_T')}), not {beaten}({args('FIND_T')}).")
        texts.append(f":- {candidate}({args('FIND_T')}), not {name}_best({key_args}).")
        return texts
    return None


def statements(path: Path, world: int) -> list:
    """The statements of one encoding file as world `world`'s copy."""
    pin = _Pin(world)
    result: list = []
    stem = re.sub("[^a-z0-9]", "_", path.stem.lower())
    for number, statement in enumerate(engine.statements(str(path))):
        kind = statement.ast_type
        if kind in (ast.ASTType.ShowSignature, ast.ASTType.ShowTerm, ast.ASTType.Program):
            continue
        if kind == ast.ASTType.Minimize:
            raise InternalError(f"find: {path} optimizes; a world cannot carry an optimization statement")
        texts = _without_extreme_aggregates(statement, f"aggregate_{stem}_{number}")
        if texts is None:
            result.append(pin(worlds.rewrite(statement)))
            continue
        ast.parse_string("\n".join(texts), lambda s: s.ast_type == ast.ASTType.Program
                         or result.append(pin(worlds.rewrite(s))))
    return result


def add(ctl: clingo.Control, paths: list[Path], world: int) -> None:
    """Add world `world`'s copy of the files `paths` to `ctl` (program base)."""
    with ast.ProgramBuilder(ctl) as builder:
        for path in paths:
            for statement in statements(Path(path), world):
                builder.add(statement)
