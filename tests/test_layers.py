"""The package's layers import only downward (docs/design.md, "Layers").

Every `import`/`from … import` of an ome_asp module anywhere in a module of
ome_asp -- at the top or inside a function -- is checked: a module may import
its own layer and the layers below it, never one above. cli.py reaches the
command modules by name (its COMMANDS table), not by import.
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
    ("ome_asp.commands",),
    ("ome_asp.cli", "ome_asp.console"),
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


def imports(path: Path) -> set[str]:
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            # `from ome_asp.x import y`: y may be a module of x; either way x's layer or y's
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if base in ("ome_asp",) else base)
    return {name for name in found if name == "ome_asp" or name.startswith("ome_asp.")}


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
