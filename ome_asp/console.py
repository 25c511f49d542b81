"""The installed commands `ome-asp` and `kubectl-ome_asp`.

Ctrl-C in any phase -- while the command's modules are imported, while
reading, solving or writing -- ends the run with one line and exit code 130,
never a traceback (D-58). The handler ends the process itself rather than
raising KeyboardInterrupt, which a finalizer (clingo's Control.__del__) or a
cleanup step would report as "Exception ignored" and carry on from. This
module imports nothing of ome-asp but errors.py (the exit codes; the standard
library's enum only) before the handler is in place.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from types import FrameType

from ome_asp.errors import Exit, UnsupportedClingo, error_exit


def main() -> None:
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not a job started with SIGINT ignored
        signal.signal(signal.SIGINT, _interrupted)
    # Importing the modules makes many objects and frees almost none: the
    # collector's passes over them would find nothing (D-136).
    gc.disable()
    try:
        from ome_asp.cli import console_main
    except UnsupportedClingo as error:  # the command modules import the solver
        print(f"error: {error}", file=sys.stderr)
        sys.exit(error_exit(sys.argv[1:]))
    finally:
        gc.enable()
    code = console_main()
    # The output is written and the atexit handlers still run: the
    # interpreter's teardown need not walk every object for cycles to free
    # memory the process gives back anyway (about as many instructions as
    # reading and solving the worked example, D-136).
    gc.freeze()
    sys.exit(code)


def _interrupted(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt this
    try:
        os.write(2, b"error: interrupted\n")
    except OSError:  # no stderr to tell
        pass
    os._exit(Exit.INTERRUPTED)  # nothing more runs: no exit handler, no buffered output


if __name__ == "__main__":
    main()
