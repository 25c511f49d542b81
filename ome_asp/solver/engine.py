"""Ground a program variant's files of encoding/ with a program of facts:
the clingo Control ask.py solves, each file parsed once per process."""

from __future__ import annotations

import atexit

import clingo

from ome_asp.errors import InternalError
from ome_asp.solver.facts import Facts
from ome_asp.solver.programs import Variant, encoding_dir


def ground(facts: Facts, variant: Variant) -> clingo.Control:
    """The ground program of `variant` on `facts` (for measuring it: the
    benchmarks' ground sizes, tests/test_scaling.py)."""
    return ground_program(facts.whole, variant.files)


def ground_program(facts: str, files: tuple[str, ...], load=None) -> clingo.Control:
    """`load(ctl, files)` adds the encoding (default: the files as written;
    worlds.py adds them rewritten for many worlds)."""
    # optN enumerates every optimal model, which lets ask.solve prove uniqueness;
    # without optimization statements it enumerates all models (there is one).
    dropped: list[str] = []

    def log(code: clingo.MessageCode, message: str) -> None:
        # clingo's messages never reach the user's stderr. An undefined
        # operation means a rule instance was silently dropped, which the
        # encoding must never cause; the rest are infos such as a #show for
        # atoms this program variant does not derive. (A logger must not raise.)
        if code == clingo.MessageCode.OperationUndefined:
            dropped.append(message.strip())

    ctl = clingo.Control(["--opt-mode=optN", "--models=0"], logger=log)
    (load or _load_encoding)(ctl, files)
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    if dropped:
        raise InternalError(f"clingo: {dropped[0]}")
    return ctl


# Parsing encoding/ as text costs about 2 ms per Control; adding statements
# parsed once (comments left out) costs about 0.5 ms. Parsing into statements
# costs about 5 ms, so a file is kept parsed from the second time a process
# loads it: the CLI grounds once, serve and the batch commands ground again
# and again. The statements are the file's, in its order, with its locations
# (messages).
_parsed: dict[str, list] = {}  # file path -> its statements
_loaded_once: set[str] = set()
# Statements free themselves through clingo's library, which is gone once the
# interpreter tears modules down ("Exception ignored" on stderr): free them first.
atexit.register(_parsed.clear)


def _load_encoding(ctl: clingo.Control, files: tuple[str, ...]) -> None:
    directory = encoding_dir()
    for name in files:
        path = str(directory / name)
        if path not in _parsed and path not in _loaded_once:
            _loaded_once.add(path)
            ctl.load(path)
            continue
        from clingo import ast  # only a process that grounds twice needs it

        if path not in _parsed:
            _parsed[path] = statements(path)
        with ast.ProgramBuilder(ctl) as builder:
            for statement in _parsed[path]:
                builder.add(statement)


def statements(path: str) -> list:
    """The statements of an encoding file, less its comments (half of them)."""
    from clingo import ast

    found = []

    def keep(statement) -> None:
        if statement.ast_type != ast.ASTType.Comment:
            found.append(statement)

    ast.parse_files([path], keep)
    return found
