"""The programs: which files of encoding/ each program variant grounds, and
where encoding/ is.

Every variant is a member of `Variant`, carrying its files;
encoding/README.md's table "Program variants" lists the same members with
the same files (tests/test_programs.py). This module imports nothing of
ome-asp, so every solver module (facts.py for the schema's `#defined`
predicates, engine.py, worlds.py, finder.py) can read it.
"""

from __future__ import annotations

import contextlib
import enum
import importlib.util
from pathlib import Path
from typing import Iterator

MAIN_LP = "main.lp"  # includes every file of the one-query explain program

_override: list[Path] = []  # using_encoding's directory, innermost last


def encoding_dir() -> Path:
    """encoding/ of the source tree; a plain install has it as the data package
    ome_asp.encoding; inside `using_encoding(d)`, d."""
    if _override:
        return _override[-1]
    source = Path(__file__).resolve().parents[2] / "encoding"
    if (source / MAIN_LP).is_file():
        return source
    spec = importlib.util.find_spec("ome_asp.encoding")  # an installed package only
    assert spec is not None and spec.submodule_search_locations is not None, "ome_asp.encoding is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


@contextlib.contextmanager
def using_encoding(directory: Path) -> Iterator[None]:
    """Run the programs of another encoding directory (an edited copy of
    encoding/: `ome-asp find --differ-encoding`)."""
    _override.append(Path(directory).resolve())
    try:
        yield
    finally:
        _override.pop()


# The parts the variants are made of (encoding/README.md, "Files").
CORE = (
    "input.lp", "admission.lp", "lookup.lp", "versions.lp", "compatibility.lp", "accelerators.lp",
    "deployment.lp", "sizes.lp", "scoring.lp", "qualification.lp", "ordering.lp",
)
EXPLANATION = ("explanation.lp",)  # every candidate with all its reasons
ROWS = ("rows.lp",)  # a No row in one shown atom: the reporting programs, not find's
FAILURES = ("failures.lp",)  # E14's first and later failed checks without an aggregate: find's programs
DETAILS = ("details.lp",)  # explain -v: the atoms of explanation.lp that only it reads
SELECTION = ("selection.lp",)  # the #minimize statements: one query per solve
WINNER = ("winner.lp",)  # the same first runtime for many queries, without search
SHOW = ("show.lp",)
OUTCOME = ("outcome.lp",)  # what OME does with the selection: select
WEBHOOK = ("input.lp", "admission.lp")  # the runtime admission webhook alone
EDITS = ("edits.lp",)  # a choice of candidate edits, the goal that a wanted runtime wins, apply/1
STEER = EDITS + ("steer.lp",)  # the edits of steer's vocabulary that make a wanted runtime win
COMPARE = EDITS + ("compare.lp",)  # the edits between two snapshots that give the later selection


class Variant(enum.Enum):
    """A program variant: its files, in load order. A one-query variant
    (`selection.lp`'s #minimize) answers exactly one query per solve; the
    others (`winner.lp`, no search) answer any number."""

    EXPLAIN = CORE + EXPLANATION + ROWS + SELECTION + SHOW  # main.lp
    EXPLAIN_DETAILS = CORE + EXPLANATION + ROWS + SELECTION + SHOW + DETAILS
    SELECT = CORE + EXPLANATION + ROWS + SELECTION + SHOW + OUTCOME
    SELECT_DETAILS = CORE + EXPLANATION + ROWS + SELECTION + SHOW + OUTCOME + DETAILS  # steer's check: select's and -v's atoms
    RANK = CORE + SELECTION + SHOW
    BATCH_EXPLAIN = CORE + EXPLANATION + ROWS + WINNER + SHOW
    BATCH_SELECT = CORE + EXPLANATION + ROWS + WINNER + SHOW + OUTCOME
    BATCH_SELECT_DETAILS = CORE + EXPLANATION + ROWS + WINNER + SHOW + OUTCOME + DETAILS  # steer's check of all its sets at once
    BATCH_RANK = CORE + WINNER + SHOW
    ADMIT = WEBHOOK + SHOW
    STEER = CORE + STEER
    COMPARE = CORE + COMPARE
    FIND_RANK = CORE + WINNER
    FIND_EXPLAIN = CORE + EXPLANATION + FAILURES + WINNER
    FIND_SELECT = CORE + EXPLANATION + FAILURES + WINNER + OUTCOME

    @property
    def files(self) -> tuple[str, ...]:
        return self.value

    @property
    def one_query(self) -> bool:
        return SELECTION[0] in self.value

    @property
    def batch(self) -> Variant:
        """The variant that answers as this one does for any number of
        queries and cases (worlds): winner.lp instead of selection.lp
        (details.lp reads rank_key/3, which both give; EXPLAIN_DETAILS, for
        explain -v's one query, has no batch form)."""
        if not self.one_query:
            return self
        return Variant(tuple(WINNER[0] if name == SELECTION[0] else name for name in self.value))

    def answering(self, n_queries: int) -> Variant:
        """The variant that answers `n_queries` queries as this one does:
        itself for one, its batch form for any other number."""
        return self if n_queries == 1 else self.batch
