"""Shared helpers: run the CLI in-process and capture what a user would see."""

from __future__ import annotations

import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from ome_asp.cli import main

# CI (CI=true, as .ci/run is run) replays the same examples every time, so a
# red run is reproducible and a landing never hinges on a lucky draw; runs
# elsewhere draw new examples and keep exploring.
# OME_ASP_HYPOTHESIS=explicit runs only the @example cases (scripts/mutate.py:
# a mutation must be killed on every run, not by a lucky draw).
settings.register_profile("ci", derandomize=True)
settings.register_profile("explicit", phases=[Phase.explicit])
settings.load_profile(os.environ.get("OME_ASP_HYPOTHESIS") or ("ci" if os.environ.get("CI") else "default"))

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
GOLDEN = Path(__file__).resolve().parent / "golden"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


def run_cli(*argv: str, stdin: bytes = b"") -> Run:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli():
    return run_cli


# An input message's location (file, line, document, List item; or serve's JSON
# path of a request's document): it points into the layout, which I10 lets
# change (tests of determinism compare without it).
LOCATION = re.compile(r"^(warning|error): (?:manifests\[\d+\](?:\.items\[\d+\])?"
                      r"|.*?:\d+(?::\d+)?: document \d+(?:: items\[\d+\])?): ", re.MULTILINE)


def messages(stderr: str) -> list[str]:
    """stderr's lines without their locations, sorted."""
    return sorted(LOCATION.sub(r"\1: ", stderr).splitlines())


def without_places(stdout: str, output: str | None) -> str:
    """A JSON report's `warnings` (issue 16) hold stderr's lines, locations included:
    compared as stderr is, the rest byte for byte."""
    if output != "json" or not stdout:
        return stdout
    document = json.loads(stdout)
    document["warnings"] = messages("".join(f"warning: {w}\n" for w in document.get("warnings", [])))
    return json.dumps(document, indent=2)
