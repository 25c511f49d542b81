"""Run `ome-asp check|gen|diff` in-process, as `ome_asp.cli.main` does.

Until cli.py registers these commands, they are added to its parser here;
afterwards this is just `cli.main`."""

from __future__ import annotations

import io

from conftest import Run
from ome_asp import check, cli, diff, gen
from ome_asp.errors import OmeAspError

MODULES = {"check": check, "gen": gen, "diff": diff}


def run_command(*argv: str) -> Run:
    parser = cli.build_parser()
    commands = next(action for action in parser._actions if action.dest == "command")
    if argv[0] in commands.choices:
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(list(argv), stdin=io.BytesIO(b""), stdout=out, stderr=err)
        return Run(code, out.getvalue(), err.getvalue())
    MODULES[argv[0]].add_parser(commands)
    out, err = io.StringIO(), io.StringIO()
    try:
        args = parser.parse_args(list(argv))
        code = args.run(args, io.BytesIO(b""), out, err)
    except OmeAspError as error:  # as cli.main reports it for commands other than explain
        print(f"error: {error}", file=err)
        code = 2
    return Run(code, out.getvalue(), err.getvalue())
