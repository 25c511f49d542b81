"""When ome-asp itself fails: one `internal error:` line and exit code 3, never a
traceback on the terminal, and a directory that reproduces the failure.

The directory holds the run's facts, a copy of encoding/, the command line,
the traceback and a README saying how to replay the solve with plain clingo
(`python -m clingo`), so a bug report needs nothing else.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
import traceback
from pathlib import Path
from typing import TextIO

from ome_asp import __version__
from ome_asp.errors import Exit, InternalError
from ome_asp.solver.programs import encoding_dir

FACTS = "facts.lp"
REPLAY = f"python -m clingo {FACTS} encoding/main.lp --opt-mode=optN --models=0"


def report(error: BaseException, argv: list[str], facts: str | None, stderr: TextIO) -> int:
    """Print the `internal error:` line for `error`, write the reproduction
    directory (`facts`: the run's program text, when it got that far), and
    return the exit code."""
    what = describe(error)
    try:
        where = write_dump(error, argv, facts)
    except Exception as err:  # a full or read-only temp dir, or anything else, must not hide the error itself
        print(f"internal error: {what} (no reproduction written: {err})", file=stderr)
    else:
        print(f"internal error: {what}; a reproduction is in {where} (see README.md there)", file=stderr)
    return Exit.INTERNAL


def describe(error: BaseException) -> str:
    """What went wrong, on one line. The encoding's own failures say it in
    their message; any other exception is a bug, named by its type."""
    text = str(error) if isinstance(error, InternalError) else f"{type(error).__name__}: {error}"
    return " ".join(text.splitlines()) or type(error).__name__


def write_dump(error: BaseException, argv: list[str], facts: str | None) -> Path:
    """A new directory under the temp dir with everything needed to reproduce `error`."""
    directory = Path(tempfile.mkdtemp(prefix="ome-asp-internal-error-"))
    shutil.copytree(encoding_dir(), directory / "encoding", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    _write(directory / "command.txt", f"cd {shlex.quote(os.getcwd())}\n{shlex.join(['ome-asp', *argv])}\n")
    _write(directory / "traceback.txt", "".join(traceback.format_exception(error)))
    if facts is not None:
        _write(directory / FACTS, facts)
        replay = f"Replay the solve with plain clingo (`pip install clingo`):\n\n    cd {directory}\n    {REPLAY}\n"
    else:
        replay = "It failed before the facts were built: replay it with the command in command.txt.\n"
    _write(directory / "README.md", (
        f"# ome-asp {__version__}: internal error\n\n{describe(error)}\n\n{replay}\n"
        "`command.txt` is the command that failed and where it ran; `traceback.txt` is where it\n"
        "failed; `encoding/` is the encoding it used. Please attach this directory to a bug report.\n"
    ))
    return directory


def _write(path: Path, text: str) -> None:
    """`text` as UTF-8, whatever it holds: a working directory, an argument or
    a message of bytes that are not UTF-8 (Python's lone surrogates for them)
    is written as those bytes, so `cd` in command.txt goes where the run was;
    any other lone surrogate as its escape (issue 38: was a traceback, exit 1)."""
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "backslashreplace")
    path.write_bytes(data)
