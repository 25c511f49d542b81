"""The reason catalogue covers every message the code can render, and
docs/troubleshooting.md is generated from it (no drift between docs and messages)."""

import subprocess
import sys

import clingo
from conftest import ROOT

from ome_asp.render import reasons
from ome_asp.render.catalogue import ADMISSION, CATALOGUE, OUTCOMES


def test_every_renderer_has_a_catalogue_entry_and_back():
    assert sorted(r.name for r in CATALOGUE) == sorted(reasons._RENDER)
    assert sorted(r.name for r in OUTCOMES) == sorted(reasons._OUTCOME)


def test_every_example_renders_under_its_own_name():
    for reason in CATALOGUE + ADMISSION + OUTCOMES:
        assert clingo.parse_term(reason.example).name == reason.name


def test_troubleshooting_doc_is_generated_from_the_catalogue():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_troubleshooting.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
