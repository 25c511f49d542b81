"""The exceptions the command line turns into `error: ...` lines (spec E2, I4),
and the exit codes. Imports nothing of ome-asp: console.py reads it before
its Ctrl-C handler is in place."""

from contextvars import ContextVar
from enum import IntEnum

# The facts (program text) of the solve in progress, which an internal
# error's reproduction holds (commands/diagnostics.py): solver/ask.py records
# them, whichever command, search or request builds them; cli.main clears them.
FACTS_IN_PROGRESS: ContextVar[str | None] = ContextVar("facts_in_progress", default=None)


class OmeAspError(Exception):
    """An error reported to the user as one `error: <message>` line, and its
    hint under it, as a line `hint: <hint>`, where it has one (a "did you mean",
    issue 24; serve answers it as the error answer's `hint`)."""

    hint: str | None = None


class InternalError(OmeAspError):
    """ome-asp's own fault, not the user's: `internal error: ...`, exit 3, with a reproduction (diagnostics)."""


class InputError(OmeAspError):
    """Malformed or invalid input (spec I4): the run stops before any query."""


class UsageError(OmeAspError):
    """Bad flags or arguments (spec E3)."""


class OutputError(OmeAspError):
    """The output cannot be written (a full disk, /dev/full): not ome-asp's fault."""


def error_exit(argv: list[str]) -> int:
    """The exit code of an `error:` line: explain keeps spec E2 (1 for every
    error); the other commands keep 1 for their normal negative result and
    exit 2 on input and usage errors."""
    return Exit.ERROR if argv[:1] == ["explain"] else Exit.USAGE


class UnsupportedClingo(OmeAspError):
    """clingo of a minor version ome-asp is not tested on (ome_asp/solver/__init__.py),
    raised when the solver is imported: the command's error line and exit code."""


class Exit(IntEnum):
    """Every exit code of ome-asp (README, "Output streams and exit codes")."""

    OK = 0
    ERROR = 1  # E2: every error of explain
    # the normal negative result of the other commands: admit denies a runtime, select
    # uses none, steer finds no edits, compare finds a difference, check fails a case,
    # diff disagrees, find finds no witness
    NEGATIVE = 1
    USAGE = 2  # input or usage error of the commands other than explain
    INTERNAL = 3  # ome-asp's own fault (commands/diagnostics.py; D-28: nothing else)
    OUTCOME = 4  # an outcome without a table (docs/profiles.md section 0): unsupported input, panic, order unspecified
    INTERRUPTED = 130  # Ctrl-C (D-58), as a shell reports a process ended by SIGINT (128 + 2)
    BROKEN_PIPE = 141  # the reader is gone (D-48), as a shell reports a process ended by SIGPIPE (128 + 13)
