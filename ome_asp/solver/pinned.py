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
from functools import lru_cache
from itertools import permutations
from pathlib import Path
from typing import Sequence

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
            return ", ".join([*key, last])  # noqa: B023 (called in this iteration)

        texts = []
        implied = False
        for element in atom.elements:
            # The candidates need the rule's other literals only to bind the key.
            binding = [c for c in element.condition if c.ast_type == ast.ASTType.Literal
                       and c.sign == ast.Sign.NoSign and c.atom.ast_type == ast.ASTType.SymbolicAtom]
            body = ([] if set(key) <= _variables(*binding) else rest) + [str(c) for c in element.condition]
            texts.append(f"{candidate}({args(str(element.terms[0]))}) :- {', '.join(body)}.")
            implied = implied or _implied([b for i, b in enumerate(rule.body) if i != position], element, set(key))
        if implied:
            # The rest only says the set is not empty, which a candidate
            # already says: kept, it would ground the rule once per way the
            # rest holds (scoring.lp's view_score: 25 times more rules).
            rest = []
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


class _Rename(ast.Transformer):
    def __init__(self, names: dict[str, str]) -> None:
        self._names = names

    def visit_Variable(self, variable):
        return ast.Variable(variable.location, self._names.get(variable.name, variable.name))


def _implied(rest: list, element, key: set[str]) -> bool:
    """Whether the rule's other literals hold whenever the element's
    condition does: they are positive atoms, and renaming their variables
    outside the key makes them literals of the condition (`X = #max{ K :
    p(R, K) }, p(R, K0)`: p(R, K0) only makes the set non-empty)."""
    if not rest or any(b.ast_type != ast.ASTType.Literal or b.sign != ast.Sign.NoSign
                       or b.atom.ast_type != ast.ASTType.SymbolicAtom for b in rest):
        return False
    condition = {str(c) for c in element.condition}
    inner = _variables(*element.condition)
    free = sorted(_variables(*rest) - key)
    # Every way of renaming the free variables to the condition's (a rule has a handful).
    for image in permutations(sorted(inner - key), len(free)):
        rename = _Rename(dict(zip(free, image)))
        if {str(rename(b)) for b in rest} <= condition:
            return True
    return False


# The joins find grounds projected (_projected): in the rules of the head
# predicate, the group of atoms that holds the other predicate. Measured on
# the catalogue's proofs: rank_key's join through the query's score view
# makes them 10-25 times faster; projecting every rule's joins (sizes.lp's
# distances, versions.lp's comparisons, ...) makes them 2-3 times slower
# again: more atoms, for joins with one match in every answer set anyway.
PROJECTED = {("rank_key", 3): ("query_view", 2)}


def _projected(rule, name: str) -> list[str] | None:
    """The rule with its positive atoms joined only through variables the
    rest of the rule does not use replaced by one atom of what they bind
    (a projection), for the joins PROJECTED names; None when there are none.

    On facts each such join has one match, but find's inputs are chosen:
    every possible match grounds its own copy of the rule. ordering.lp's
    rank_key reads a score through the query's score view (query_view,
    view_score): without the projection it grounds once per possible view,
    40 times the rules, and the proofs of the catalogue take minutes."""
    if rule.ast_type != ast.ASTType.Rule:
        return None
    through = {PROJECTED[head] for head in _atoms(rule.head) if head in PROJECTED}
    if not through:
        return None
    body = list(rule.body)
    is_positive = [b.ast_type == ast.ASTType.Literal and b.sign == ast.Sign.NoSign
                   and b.atom.ast_type == ast.ASTType.SymbolicAtom for b in body]
    positive = [b for b, p in zip(body, is_positive) if p]
    others = [b for b, p in zip(body, is_positive) if not p]
    outside = _variables(rule.head, *others)
    local = {b_i: _variables(b) - outside for b_i, b in enumerate(positive)}
    # Group the atoms that share a local variable.
    groups: list[set[int]] = []
    for i in range(len(positive)):
        if not local[i]:
            continue
        joined = [g for g in groups if any(local[i] & local[j] for j in g)]
        merged = {i}.union(*joined)
        groups = [g for g in groups if g not in joined] + [merged]
    groups = [g for g in groups if len(g) > 1 and _atoms(*(positive[i] for i in g)) & through]
    if not groups:
        return None
    texts, body = [], [str(b) for b in others]
    grouped = set().union(*groups)
    body += [str(b) for i, b in enumerate(positive) if i not in grouped]
    for number, group in enumerate(groups):
        members = [positive[i] for i in sorted(group)]
        interface = sorted(_variables(*members) - set().union(*(local[i] for i in group)))
        atom = f"{name}_{number}({', '.join(interface)})" if interface else f"{name}_{number}"
        texts.append(f"{atom} :- {', '.join(str(m) for m in members)}.")
        body.append(atom)
    texts.append(f"{rule.head} :- {', '.join(body)}.")
    return texts


# The key find replaces by the model (_collapse): scoring.lp's score view,
# score_view(M, view(F, FV, Has, Fw, FwV)), lets the models of one view share
# their scores (docs/performance.md, G7). The view is a function of the model,
# so keying the scores by the model instead changes no answer (models of one
# view then score alike apart); but find's model fields are chosen, so every
# possible view (72 at the default pools) grounded its own copy of
# view_score's #max and of everything joined through it, against one per
# possible model (2 at the default bounds): 80 % of the atoms. Measured on
# raising-winner-priority-keeps-it-first: 217,000 ground rules -> 65,000, 44-64 s
# of search -> 4-6 s (D-71).
COLLAPSED = {("score_view", 2): (1, 0)}  # (predicate, arity): (the argument replaced, by this argument)


def _collapsed_head(rule):
    """The function term the rule's head has where COLLAPSED names one, or None."""
    if rule.ast_type != ast.ASTType.Rule or rule.head.ast_type != ast.ASTType.Literal:
        return None
    atom = rule.head.atom
    if atom.ast_type != ast.ASTType.SymbolicAtom or atom.symbol.ast_type != ast.ASTType.Function:
        return None
    positions = COLLAPSED.get((atom.symbol.name, len(atom.symbol.arguments)))
    term = None if positions is None else atom.symbol.arguments[positions[0]]
    return term if term is not None and term.ast_type == ast.ASTType.Function else None


def _collapse(rule):
    """The rule with COLLAPSED's argument of its head replaced by the other one it names (or as it is)."""
    if _collapsed_head(rule) is None:
        return rule
    symbol = rule.head.atom.symbol
    replaced, by = COLLAPSED[(symbol.name, len(symbol.arguments))]
    arguments = list(symbol.arguments)
    arguments[replaced] = arguments[by]
    return rule.update(head=rule.head.update(atom=rule.head.atom.update(symbol=symbol.update(arguments=arguments))))


class _Functions(ast.Transformer):
    def __init__(self) -> None:
        self.found: list[tuple[str, int]] = []

    def visit_Function(self, function):
        self.found.append((function.name, len(function.arguments)))
        self.visit_children(function)  # the nested terms too
        return function


def collapsible(paths: list[Path]) -> bool:
    """Whether the COLLAPSED terms of these files may be replaced: no rule but
    their own heads builds or matches a term of their name and arity (a rule
    reading a view's parts would read nothing once it is the model; an edited
    encoding or a --where file may have one)."""
    collapsed, found = [], _Functions()
    for path in paths:
        for statement in engine.statements(str(path)):
            term = _collapsed_head(statement)
            if term is not None:
                collapsed.append((term.name, len(term.arguments)))
            found(statement)
    return all(found.found.count(term) == collapsed.count(term) for term in set(collapsed))


def statements(path: Path, world: int, collapse: bool = False) -> tuple:
    """The statements of one encoding file as world `world`'s copy (with
    COLLAPSED's terms replaced if `collapse`, see collapsible). Rewritten
    once per file version in a process: every profile's world reads the same
    files (the profile is in the facts), and the tests run many searches."""
    stat = path.stat()
    return _statements(path, stat.st_mtime_ns, stat.st_size, world, collapse)


@lru_cache(maxsize=256)
def _statements(path: Path, _mtime: int, _size: int, world: int, collapse: bool) -> tuple:
    pin = _Pin(world)
    result: list = []
    stem = re.sub("[^a-z0-9]", "_", path.stem.lower())

    def add(statement, number: int) -> None:
        if collapse:
            statement = _collapse(statement)
        texts = _projected(statement, f"projection_{stem}_{number}_{len(result)}")
        if texts is None:
            result.append(pin(worlds.rewrite(statement)))
            return
        ast.parse_string("\n".join(texts), lambda s: s.ast_type == ast.ASTType.Program
                         or result.append(pin(worlds.rewrite(s))))

    for number, statement in enumerate(engine.statements(str(path))):
        kind = statement.ast_type
        if kind in (ast.ASTType.ShowSignature, ast.ASTType.ShowTerm, ast.ASTType.Program):
            continue
        if kind == ast.ASTType.Minimize:
            raise InternalError(f"find: {path} optimizes; a world cannot carry an optimization statement")
        texts = _without_extreme_aggregates(statement, f"aggregate_{stem}_{number}")
        if texts is None:
            add(statement, number)
            continue
        ast.parse_string("\n".join(texts), lambda s: s.ast_type == ast.ASTType.Program or add(s, number))  # noqa: B023 (parsed here)
    return tuple(result)


def add(ctl: clingo.Control, paths: list[Path], world: int, shares: tuple[int, set] | None = None,
        collapse: bool = False) -> None:
    """Add world `world`'s copy of the files `paths` to `ctl` (program base);
    `collapse`: with COLLAPSED's terms replaced (collapsible).

    `shares` = (base, varied): the world's cluster is world `base`'s but for
    the predicates `varied` (name, arity with the world) and what depends on
    them. Every other predicate the files define is then world `base`'s,
    copied (`p(world, X) :- p(base, X).`) instead of derived again: the
    solver would otherwise have to prove, for every cluster it tries, that
    two copies of the same derivation agree (raise_winner: the versions,
    sizes and checks of every signature)."""
    with ast.ProgramBuilder(ctl) as builder:
        if shares is None:
            for path in paths:
                for statement in statements(Path(path), world, collapse):
                    builder.add(statement)
            return
        base, varied = shares
        every = [s for path in paths for s in statements(Path(path), world, collapse)]
        bridged: set[tuple[str, int]] = set()
        for statement in every:
            heads, body = _predicates(statement)
            if heads & varied or (not heads and body & varied):
                builder.add(statement)
            else:
                bridged |= heads
        text = []
        for name, arity in sorted(bridged):
            args = ", ".join(f"X{i}" for i in range(1, arity))
            text.append(f"{name}({world}{', ' if args else ''}{args}) :- {name}({base}{', ' if args else ''}{args}).")
        ast.parse_string("\n".join(text), lambda s: s.ast_type == ast.ASTType.Program or builder.add(s))


class _Atoms(ast.Transformer):
    def __init__(self) -> None:
        self.found: set[tuple[str, int]] = set()

    def visit_SymbolicAtom(self, atom):
        # A pooled fact `side(format; framework).` is a Pool of the atoms it stands for.
        symbols = atom.symbol.arguments if atom.symbol.ast_type == ast.ASTType.Pool else [atom.symbol]
        for symbol in symbols:
            while symbol.ast_type == ast.ASTType.UnaryOperation:
                symbol = symbol.argument
            if symbol.ast_type == ast.ASTType.Function:
                self.found.add((symbol.name, len(symbol.arguments)))
        return atom


def _atoms(*nodes) -> set[tuple[str, int]]:
    found = _Atoms()
    for node in nodes:
        found(node)
    return found.found


def _predicates(statement) -> tuple[set, set]:
    """(the predicates a rule's head mentions, those its body mentions)."""
    if statement.ast_type != ast.ASTType.Rule:
        return set(), set()
    return _atoms(statement.head), _atoms(*statement.body)


def varied(roots: set[tuple[str, int]], programs: list[Sequence]) -> set[tuple[str, int]]:
    """The predicates that depend on `roots` through the rules of `programs`
    (a head depends on every atom of its rule, the head's own conditions
    included: more than needed is safe, it only shares less)."""
    rules = [(_atoms(s.head), _atoms(s.head, *s.body)) for program in programs for s in program
             if s.ast_type == ast.ASTType.Rule]
    result = set(roots)
    changed = True
    while changed:
        changed = False
        for heads, uses in rules:
            if uses & result and not heads <= result:
                result |= heads
                changed = True
    return result
