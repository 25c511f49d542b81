"""The program variants: ome_asp/solver/programs.py's `Variant` and
encoding/README.md's table "Program variants" name the same variants with the
same files, in load order."""

from __future__ import annotations

import re
from pathlib import Path

from ome_asp.solver import programs
from ome_asp.solver.programs import Variant

README = Path(__file__).resolve().parents[1] / "encoding" / "README.md"


def table() -> dict[str, tuple[str, ...]]:
    """Each row's variant and files: the `*.lp` names of its Files column
    (before the first `;` or `:`, outside parentheses), after the core files
    where it starts with *core*."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Program variants"):]
    section = section[: section.index("\n\n", section.index("| Variant |"))]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `([A-Z_]+)`[^|]*\| ([^|]*)\|", line)
        if match:
            files = re.sub(r"\(.*?\)", "", match[2].split(";")[0].split(":")[0])  # the rest is prose
            named = tuple(re.findall(r"`([\w/]+\.lp)`", files))
            rows[match[1]] = (programs.CORE if files.startswith("core") else ()) + named
    return rows


def test_the_readme_table_is_the_enum():
    assert table() == {variant.name: variant.files for variant in Variant}


def test_main_lp_includes_the_explain_details_variant():
    """`python -m clingo facts.lp encoding/main.lp` replays a one-query explain (with -v's atoms)."""
    text = (programs.encoding_dir() / programs.MAIN_LP).read_text(encoding="utf-8")
    assert set(re.findall(r'#include "([\w.]+)"', text)) == set(Variant.EXPLAIN_DETAILS.files)


def test_every_file_a_variant_loads_exists():
    for variant in Variant:
        for name in variant.files:
            assert (programs.encoding_dir() / name).is_file(), (variant, name)
