"""The `ome-asp` command line (also installed as the kubectl plugin
`kubectl-ome_asp`): parses the command line and dispatches to the command's
module in ome_asp/commands/ or ome_asp/conformance/.

A failure of ome-asp itself is `internal error: <what>` with exit code 3
(commands/diagnostics.py); a closed output pipe exits 141 (D-48).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from typing import TextIO

from ome_asp import __version__
from ome_asp.commands.options import add_input_flags
from ome_asp.errors import FACTS_IN_PROGRESS, Exit, InternalError, OmeAspError, OutputError, UsageError, error_exit


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized to the terminal when it formats help
    rather than when it is made: argparse makes one for each add_argument too
    (to check its metavar), and sizing imports shutil, with bz2 and lzma, in
    every run that prints no help (D-141)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=0)  # a width only formatting reads: format_help sets it

    def format_help(self) -> str:
        sized = argparse.HelpFormatter(self._prog)  # argparse's own sizing
        self._width, self._max_help_position = sized._width, sized._max_help_position
        return super().format_help()


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as UsageError instead of exiting 2."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, formatter_class=_Formatter, **kwargs)

    def error(self, message: str):
        raise UsageError(message)


def _program_name(argv0: str) -> str:
    # krew convention: as a plugin, show usage as `kubectl ome-asp`.
    return "kubectl ome-asp" if os.path.basename(argv0).startswith("kubectl-") else "ome-asp"


# The subcommands in help order: the module that registers and runs each (its
# add_parser), and whether add_parser takes the shared input flags
# (add_input_flags). Modules are imported by name, only the one a run uses.
COMMANDS = {
    "explain": ("ome_asp.commands.explain", False),
    "serve": ("ome_asp.commands.serve", False),
    "select": ("ome_asp.commands.select_runtime", True),
    "admit": ("ome_asp.commands.admit", True),
    "steer": ("ome_asp.commands.steer", True),
    "compare": ("ome_asp.commands.compare", True),
    "check": ("ome_asp.conformance.check", False),
    "gen": ("ome_asp.conformance.gen", False),
    "diff": ("ome_asp.conformance.diff", False),
    "find": ("ome_asp.commands.find", False),
    "rule": ("ome_asp.commands.rule", False),
}


def build_parser(prog: str = "ome-asp", command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `command`, only that subcommand is
    registered, so one run imports only its own command's module (diff, gen
    and check pull in much more than explain needs)."""
    parser = _Parser(prog=prog, description="Which serving runtime will OME pick for a model, and why not the others?")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # prog given: argparse would format a usage line for it (D-141)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, prog=prog)
    commands.required = True
    for name, (module_name, common) in COMMANDS.items():
        if command not in (None, name):
            continue
        module = importlib.import_module(module_name)
        if common:
            module.add_parser(commands, add_input_flags)
        else:
            module.add_parser(commands)
    return parser


def main(argv: list[str] | None = None, stdin=None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run one command; returns the exit code (a plain int: callers store it,
    conformance cases write it as YAML). Never lets a traceback reach the user
    for anything the user can cause."""
    return int(_run(argv, stdin, stdout, stderr))


def _run(argv: list[str] | None, stdin, stdout: TextIO | None, stderr: TextIO | None) -> Exit:
    argv = sys.argv[1:] if argv is None else argv
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    # argv[0] names the command unless it is an option (--help, --version) or
    # a mistake, whose messages list every command.
    command = argv[0] if argv and argv[0] in COMMANDS else None
    FACTS_IN_PROGRESS.set(None)  # what this run's solves record, not an earlier run's (tests run many)
    try:
        args = build_parser(_program_name(sys.argv[0] if sys.argv else "ome-asp"), command).parse_args(argv)
        return args.run(args, stdin, stdout, stderr)
    except InternalError as error:  # an OmeAspError, but ome-asp's fault, not the user's
        return _internal_error(error, argv, stderr)
    except OmeAspError as error:
        print(f"error: {error}", file=stderr)
        if error.hint is not None:
            print(f"hint: {error.hint}", file=stderr)
        return error_exit(argv)
    except BrokenPipeError:  # the reader is gone (`... | head`): nothing is wrong, stop quietly
        return Exit.BROKEN_PIPE
    except Exception as error:  # a bug: a reproduction for us, no traceback for the user
        return _internal_error(error, argv, stderr)


def _internal_error(error: BaseException, argv: list[str], stderr: TextIO) -> int:
    from ome_asp.commands import diagnostics  # only a failing run needs it

    return diagnostics.report(error, argv, FACTS_IN_PROGRESS.get(), stderr)


class _Output:
    """stdout for a command: a write the system refuses (a full disk,
    /dev/full) is the user's environment, not ome-asp's fault: one `error:`
    line (D-58). A closed pipe stays BrokenPipeError (D-48). `failed` says
    that output was lost, so what is still buffered is dropped, not retried."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.failed = False

    def write(self, text: str) -> int:
        return self._guarded(self._stream.write, text)

    def flush(self) -> None:
        self._guarded(self._stream.flush)

    def _guarded(self, call, *args):
        try:
            return call(*args)
        except BrokenPipeError:
            self.failed = True
            raise
        except OSError as error:
            self.failed = True
            raise OutputError(f"cannot write the output: {error.strerror or error}") from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _standard_streams() -> str | None:
    """Make the process's streams safe to use; why stdout cannot be, if so.

    Output is UTF-8 whatever the locale (as kubectl writes; JSON is UTF-8),
    through a buffer even under PYTHONUNBUFFERED, whose raw writes may write
    part of the text and drop the rest silently (a closed pipe then went
    unnoticed, exit 0). A closed stdin reads as empty; a closed stderr
    discards."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")
    else:
        sys.stderr.reconfigure(encoding="utf-8", errors="backslashreplace")
    if sys.stdin is None:
        sys.stdin = open(os.devnull)
    if sys.stdout is None:
        return "standard output is closed"
    buffer = sys.stdout.buffer
    if not isinstance(buffer, io.BufferedIOBase):
        buffer = io.BufferedWriter(buffer)
    sys.stdout = io.TextIOWrapper(
        buffer, encoding="utf-8", errors="surrogateescape", line_buffering=sys.stdout.line_buffering
    )
    return None


def console_main() -> int:
    """The `ome-asp` command (through ome_asp.console): `main` on the process's
    streams, and every way the process can end, as one line and a documented
    exit code."""
    argv = sys.argv[1:]
    closed = _standard_streams()
    if closed is not None:
        print(f"error: {closed}", file=sys.stderr)
        return error_exit(argv)
    output = _Output(sys.stdout)
    code = main(argv, stdout=output)
    try:
        if not output.failed:
            output.flush()
    except BrokenPipeError:
        code = Exit.BROKEN_PIPE
    except OutputError as error:
        print(f"error: {error}", file=sys.stderr)
        code = error_exit(argv)
    if output.failed:  # what is still buffered for the closed pipe or full disk goes nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code

