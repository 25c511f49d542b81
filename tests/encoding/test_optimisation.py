"""The one optimisation convention of every optimising program
(encoding/README.md, "Optimisation: one convention"; D-78): each #minimize
level read from a named `criterion(Level, Name)`, a distinguishing term in
every tuple, a keep-shape line, and a cost vector that is exactly the
program's band, the highest band of criteria it holds (what `--show opt`
names it by).
"""

from pathlib import Path

import clingo
import pytest
from clingo import ast

from ome_asp.input import profiles
from ome_asp.solver import finder, programs
from ome_asp.solver.programs import Variant

from .lp import ENCODING

FILES = sorted(ENCODING.rglob("*.lp"))


def minimize_elements(path: Path) -> list:
    """The file's own #minimize elements (not those of files it includes)."""
    found: list = []
    ast.parse_files([str(path)], lambda s: found.append(s) if s.ast_type == ast.ASTType.Minimize else None)
    return [s for s in found if Path(s.location.begin.filename).resolve() == path.resolve()]


def test_the_optimising_files_are_the_ones_the_convention_lists():
    """A new optimising file must join the README's table of bands."""
    optimising = {str(p.relative_to(ENCODING)) for p in FILES if minimize_elements(p)}
    assert optimising == {"selection.lp", "steer.lp", "compare.lp", "edits.lp", "find/generate.lp"}


@pytest.mark.parametrize("path", [p for p in FILES if minimize_elements(p)], ids=lambda p: str(p.relative_to(ENCODING)))
def test_every_level_is_read_from_a_named_criterion_and_every_tuple_has_a_term(path):
    """O1-O4 in selection.lp and every edit or find level: a literal level
    (`C@4`) or a tuple of the weight alone fails."""
    for element in minimize_elements(path):
        where = f"{path.name}:{element.location.begin.line}"
        assert element.priority.ast_type == ast.ASTType.Variable, f"{where}: a literal level"
        level = element.priority.name
        named = [b for b in element.body if b.ast_type == ast.ASTType.Literal and b.sign == ast.Sign.NoSign
                 and b.atom.ast_type == ast.ASTType.SymbolicAtom and b.atom.symbol.ast_type == ast.ASTType.Function
                 and b.atom.symbol.name == "criterion" and len(b.atom.symbol.arguments) == 2
                 and str(b.atom.symbol.arguments[0]) == level]
        assert named, f"{where}: level {level} is not read from criterion/2"
        assert element.terms, f"{where}: no distinguishing term"


class Levels(clingo.Observer):
    def __init__(self) -> None:
        self.levels: set[int] = set()

    def minimize(self, priority: int, literals) -> None:
        self.levels.add(priority)


def grounded_levels(files: list[Path], facts: str = "") -> tuple[set[int], dict[int, str]]:
    """The levels of the ground #minimize statements and the criterion/2 atoms."""
    ctl = clingo.Control(["--warn=none"])
    observer = Levels()
    ctl.register_observer(observer)
    for path in files:
        ctl.load(str(path))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    pairs = [(a.symbol.arguments[0].number, str(a.symbol.arguments[1]))
             for a in ctl.symbolic_atoms.by_signature("criterion", 2)]
    criteria = dict(pairs)
    assert len(criteria) == len(pairs), f"two criteria share a level: {sorted(pairs)}"
    return observer.levels, criteria


def find_program() -> tuple[list[Path], str]:
    world = finder.World(profiles.resolve("v1.3", None), programs.encoding_dir())
    return [finder.find_dir() / "generate.lp"], finder.program(finder.Bounds(), [world], False)


PROGRAMS = {
    "selection": ([ENCODING / f for f in Variant.RANK.files], ""),
    "steer": ([ENCODING / f for f in Variant.STEER.files], ""),
    "compare": ([ENCODING / f for f in Variant.COMPARE.files], ""),
}


ORDER = {"namespaced_first", "higher_score", "smaller_distance", "name_order"}


@pytest.mark.parametrize("name", [*PROGRAMS, "find"])
def test_the_cost_vector_is_the_highest_band_every_level_named(name):
    """Every ground level is named, and the levels are the highest of the
    program's criteria: the order's 1-4 in selection (O1-O4), steer's and
    compare's above them (the order is in their core, not minimised), every
    find level (generate.lp's keep-shape line). A steer level moved into
    1-4, or a keep-shape line left out, fails."""
    files, facts = find_program() if name == "find" else PROGRAMS[name]
    levels, criteria = grounded_levels(files, facts)
    assert levels == set(sorted(criteria, reverse=True)[:len(levels)])
    names = {criteria[level] for level in levels}
    if name == "selection":
        assert names == ORDER
    elif name == "find":
        assert levels == set(criteria)
    else:
        assert names & ORDER == set() and "fewest_edits" in names
        assert len(names) == (22 if name == "steer" else 1)  # issue 24: runtime classes, runtime mode (kind and change), quirks
