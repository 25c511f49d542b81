"""The exceptions the command line turns into `error: ...` lines (spec E2, I4)."""


class OmeAspError(Exception):
    """An error reported to the user as one `error: <message>` line."""


class InternalError(OmeAspError):
    """ome-asp's own fault, not the user's: `internal error: ...`, exit 3, with a reproduction (diagnostics)."""


class InputError(OmeAspError):
    """Malformed or invalid input (spec I4): the run stops before any query."""


class UsageError(OmeAspError):
    """Bad flags or arguments (spec E3)."""


class OutputError(OmeAspError):
    """The output cannot be written (a full disk, /dev/full): not ome-asp's fault."""
