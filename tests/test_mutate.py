"""scripts/mutate.py works (issue 39): a planted bug a test catches is
killed, a change no test can see survives, and a snippet the file does not
hold is an error of the list, not a survivor. The full run is a tool, not a
test (python scripts/mutate.py); this one plants two mutations on one fast test."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import mutate  # noqa: E402

TEST = ("tests/test_table.py::test_e13_escapes_newline_and_tab",)


def test_a_caught_mutation_is_killed_and_a_harmless_one_survives():
    caught = mutate.Mutation("cell not escaped", "ome_asp/render/table.py",
                             "cells = [[escape(c) for c in row] for row in rows]", "cells = [list(row) for row in rows]", TEST)
    harmless = mutate.Mutation("a comment", "ome_asp/render/table.py", '"""E13: wrap one', '"""E13: wrap a', TEST)
    assert [mutate.verdict(m) for m in (caught, harmless)] == ["killed", "survived"]


def test_a_snippet_not_in_the_file_is_an_error_of_the_list():
    missing = mutate.Mutation("gone", "ome_asp/render/table.py", "no such text", "", TEST)
    assert mutate.verdict(missing) == "error: ome_asp/render/table.py: the snippet occurs 0 times, not once"


def test_every_listed_snippet_is_in_its_file_once():
    """The list keeps up with the code: a snippet edited away fails here, not only in a full run."""
    for m in mutate.MUTATIONS:
        assert (ROOT / m.file).read_text(encoding="utf-8").count(m.old) == 1, m.name
    assert len({m.name for m in mutate.MUTATIONS}) == len(mutate.MUTATIONS)
