"""The package's layers import only downward (docs/design.md, "Layers"), and
no modules import each other in a cycle.

Every `import`/`from … import` of an ome_asp module anywhere in a module of
ome_asp -- at the top or inside a function -- is checked: a module may import
its own layer and the layers below it, never one above, and never, through
any chain of imports, itself. cli.py reaches the command modules by name (its
COMMANDS table), not by import. A module that registers a command imports no
other that does; a module that registers none imports none that does (library
modules never depend on commands); and the helpers among the commands
(commands/ modules that register none) solve nothing: what commands share and
solves is in analysis/.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ome_asp

PACKAGE = Path(ome_asp.__file__).parent

# Lowest first; a module's layer is the longest prefix listed.
LAYERS = [
    ("ome_asp", "ome_asp.errors", "ome_asp.timing"),
    ("ome_asp.input", "ome_asp.testing"),
    ("ome_asp.solver",),
    ("ome_asp.render",),
    ("ome_asp.analysis",),
    ("ome_asp.commands",),
    ("ome_asp.cli", "ome_asp.console", "ome_asp.__main__"),
    ("ome_asp.conformance",),
]


def layer(module: str) -> int:
    best, rank = "", None
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
                best, rank = prefix, number
    assert rank is not None, module
    return rank


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path):
    """(package, name) of each `from package import name`, (module, None) of
    each `import module`, in `path`, at the top or inside a function."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            yield from ((base, alias.name) for alias in node.names)


def imports(path: Path) -> set[str]:
    # `from ome_asp.x import y`: y may be a module of x; either way x's layer or y's
    found = {f"{base}.{name}" if name is not None and base == "ome_asp" else base for base, name in _imported(path)}
    return {name for name in found if name == "ome_asp" or name.startswith("ome_asp.")}


def modules(path: Path) -> set[str]:
    """The ome_asp modules `path` imports, each by its own name: `from
    ome_asp.solver import engine` is ome_asp.solver.engine (imports() gives
    the layer's package)."""
    found = {f"{base}.{name}" if name is not None and _is_module(f"{base}.{name}") else base for base, name in _imported(path)}
    return {name for name in found if _is_module(name)}


def _is_module(name: str) -> bool:
    if not name.startswith("ome_asp"):
        return False
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected part of `graph` that has one
    (Tarjan's algorithm; a module importing itself is a cycle too)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            part = []
            while not part or part[-1] != node:
                part.append(stack.pop())
            if len(part) > 1 or node in graph.get(node, ()):
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph() -> dict[str, set[str]]:
    return {module_name(path): modules(path) for path in sorted(PACKAGE.rglob("*.py"))}


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_check_sees_a_cycle():
    """The checker itself: a cycle in one layer, as facts -> engine -> answer
    -> facts was, is caught; an import of a module below is not a cycle."""
    graph = {"facts": {"engine"}, "engine": {"answer", "programs"}, "answer": {"facts"}, "programs": set()}
    assert cycles(graph) == [["answer", "engine", "facts"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert cycles({"a": {"a"}}) == [["a"]]


def test_the_graph_names_modules():
    """`from ome_asp.solver import engine` is an edge to the module engine."""
    graph = import_graph()
    assert "ome_asp.solver.programs" in graph["ome_asp.solver.facts"]
    assert "ome_asp.console" in graph["ome_asp.__main__"]


def command_modules() -> set[str]:
    """The modules that register a command on the command line: each defines
    add_parser (cli.COMMANDS names one per command)."""
    return {module_name(path) for path in sorted(PACKAGE.rglob("*.py"))
            if any(isinstance(node, ast.FunctionDef) and node.name == "add_parser"
                   for node in ast.parse(path.read_text(encoding="utf-8")).body)}


def command_imports(graph: dict[str, set[str]], commands: set[str]) -> dict[str, list[str]]:
    """Each command module's imports of other command modules."""
    return {c: sorted(graph[c] & (commands - {c})) for c in sorted(commands)}


def test_no_command_imports_another():
    """A module that registers a command (commands/ and conformance/ alike)
    imports no other: what two commands share is in commands/options.py,
    commands/bounds_flags.py, render/, analysis/ or a conformance module that
    registers no command (gen's rule ids went to render/case_files.py, its
    seeded clusters to testing/builders.py, so diff and find no longer import
    gen; diff --exhaustive's module, which registered diff's parser on diff's,
    is a mode that diff registers and runs, and what the two share is
    conformance/differential.py)."""
    from ome_asp.cli import COMMANDS

    commands = command_modules()
    assert {module for module, _ in COMMANDS.values()} <= commands
    assert command_imports(import_graph(), commands) == {c: [] for c in sorted(commands)}


def test_the_check_sees_a_command_importing_another():
    """The checker itself: diff and find importing gen, and diff --exhaustive's
    module (which registered diff) importing diff, as they did, are caught."""
    graph = {"ome_asp.conformance.diff": {"ome_asp.conformance.gen", "ome_asp.conformance.cases"},
             "ome_asp.commands.find": {"ome_asp.conformance.gen"}, "ome_asp.conformance.gen": set(),
             "ome_asp.conformance.exhaustive": {"ome_asp.conformance.diff"}}
    commands = {"ome_asp.conformance.diff", "ome_asp.conformance.gen", "ome_asp.commands.find", "ome_asp.conformance.exhaustive"}
    assert command_imports(graph, commands) == {
        "ome_asp.commands.find": ["ome_asp.conformance.gen"], "ome_asp.conformance.diff": ["ome_asp.conformance.gen"],
        "ome_asp.conformance.exhaustive": ["ome_asp.conformance.diff"], "ome_asp.conformance.gen": []}


def library_imports(graph: dict[str, set[str]], commands: set[str]) -> dict[str, list[str]]:
    """The command modules that each module registering no command imports (only those that import some)."""
    return {m: sorted(graph[m] & commands) for m in sorted(graph.keys() - commands) if graph[m] & commands}


def test_no_library_module_imports_a_command():
    """A module that registers no command -- conformance/cases.py,
    conformance/exhaustive.py, cli.py's helpers alike -- imports no module that
    does: serve's reports, which cases.py took from commands/serve.py, are
    analysis/oracle.py's."""
    assert library_imports(import_graph(), command_modules()) == {}


def test_the_check_sees_a_library_module_importing_a_command():
    """The checker itself: cases.py importing commands/serve.py, as it did, is caught."""
    graph = {"ome_asp.conformance.cases": {"ome_asp.commands.serve", "ome_asp.commands.options"},
             "ome_asp.commands.serve": {"ome_asp.commands.options"}, "ome_asp.commands.options": set()}
    assert library_imports(graph, {"ome_asp.commands.serve"}) == {"ome_asp.conformance.cases": ["ome_asp.commands.serve"]}


# The one solver entry point (solver/ask.py): a module that imports it solves.
SOLVES = "ome_asp.solver.ask"


def solving_helpers(graph: dict[str, set[str]], commands: set[str]) -> list[str]:
    """The modules of commands/ that register no command and solve."""
    return sorted(m for m in graph.keys() - commands if m.startswith("ome_asp.commands.") and SOLVES in graph[m])


def test_no_command_helper_solves():
    """commands/ holds the command modules and their command-line helpers
    (options, bounds_flags, diagnostics: flags, shared output, internal-error
    reproductions), none of which solves: batch, which answers a batch's
    queries through solver/ask for explain, select, serve, check, gen and
    diff, is analysis/batch.py."""
    assert solving_helpers(import_graph(), command_modules()) == []


def test_the_check_sees_a_solving_helper_among_the_commands():
    """The checker itself: batch in commands/, as it was (gen, check, diff
    and serve importing it), is caught; options, which solves nothing, is not."""
    graph = {"ome_asp.conformance.gen": {"ome_asp.commands.batch", "ome_asp.commands.options"},
             "ome_asp.commands.batch": {"ome_asp.solver.ask", "ome_asp.render.report"},
             "ome_asp.commands.options": {"ome_asp.solver.answer"}, "ome_asp.commands.explain": {"ome_asp.solver.ask"}}
    commands = {"ome_asp.conformance.gen", "ome_asp.commands.explain"}
    assert solving_helpers(graph, commands) == ["ome_asp.commands.batch"]


def test_layers_import_only_downward():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = module_name(path)
        for imported in imports(path):
            if layer(imported) > layer(own):
                upward.append(f"{own} (layer {layer(own)}) imports {imported} (layer {layer(imported)})")
    assert upward == []


def test_the_check_sees_an_upward_import(tmp_path):
    """The checker itself: a solver module importing a command is caught."""
    module = tmp_path / "ome_asp" / "solver" / "bad.py"
    module.parent.mkdir(parents=True)
    module.write_text("from ome_asp.commands import explain\n")
    assert layer("ome_asp.commands.explain") > layer("ome_asp.solver.bad")
    global PACKAGE
    saved, PACKAGE = PACKAGE, tmp_path / "ome_asp"
    try:
        assert imports(module) == {"ome_asp.commands"}
    finally:
        PACKAGE = saved
