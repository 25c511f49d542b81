"""`ome-asp rule ID`: one rule of docs/spec.md, for a reviewer of the
specification: its statement, the ASP rules that implement it (file, line and
text), what the profiles change of it, and the smallest conformance case that
exercises it, with the command that runs it.

    ome-asp rule ID [--profile P | --ome-version X.Y.Z] [-o text|json|yaml]

With a profile, only that profile's overrides are shown and the example is
its smallest case (or the default profile's, when it has none). The rule book
(ome_asp/input/rulebook.py) reads docs/spec.md, docs/profiles.md and
fixtures/cases from the source tree, or from the data packages a plain
install has (ome_asp.docs, ome_asp.cases). An unknown id is a usage error,
with a "did you mean".
"""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import TextIO

from ome_asp.commands.options import add_profile_flags, profile_of
from ome_asp.errors import Exit, UsageError
from ome_asp.input import rulebook
from ome_asp.input.loader import closest
from ome_asp.render import report
from ome_asp.render.case_files import CASE_FILE, EXPECTED_FILE, MANIFESTS_FILE, case_argv
from ome_asp.solver.programs import encoding_dir


def add_parser(commands) -> argparse.ArgumentParser:
    """Register `rule` on the CLI's subcommands."""
    parser = commands.add_parser(
        "rule",
        help="a rule of the specification: its text, the ASP rules implementing it, the profiles "
        "changing it, its smallest example",
        description="Print a rule of docs/spec.md (Q5, E12, ...): its statement, the encoding's rules "
        "that implement it, what each profile changes, and the smallest conformance case it decides.",
    )
    parser.add_argument("rule_id", metavar="ID", help="a rule id of docs/spec.md, such as Q5 or E12")
    add_profile_flags(parser)
    parser.add_argument("-o", "--output", choices=("text", "json", "yaml"), default="text")
    parser.set_defaults(run=run)
    return parser


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    rules = rulebook.spec_rules()
    rule = rules.get(args.rule_id)
    if rule is None:
        close = closest(args.rule_id, tuple(rules))
        raise UsageError(f"no rule {args.rule_id!r} in docs/spec.md"
                         + ("" if close is None else f"; did you mean {close!r}?"))
    profile = None if args.profile is None and args.ome_version is None else profile_of(args).name
    document = describe(rule, profile)
    if args.output == "text":
        stdout.write(text(document))
    else:
        report.dump(document, args.output, stdout)
    return Exit.OK


def describe(rule: rulebook.Rule, profile: str | None) -> dict:
    """The `Rule` document of `-o json`/`yaml`, which the text output prints."""
    anchors = rulebook.encoding_anchors(encoding_dir()).get(rule.id, [])
    package = Path(rulebook.__file__).resolve().parents[1]
    python = rulebook.python_citations(package, package.parent).get(rule.id, {})
    overrides = [o for o in rulebook.profile_overrides().get(rule.id, []) if profile in (None, o.profile)]
    return {
        "apiVersion": report.API_VERSION,
        "kind": "Rule",
        "id": rule.id,
        "title": rule.title,
        "section": rule.section,
        "statement": rule.text,
        "encoding": [{"file": f"encoding/{a.path}", "line": a.line, "comment": a.comment,
                      "statements": [{"line": n, "text": line} for n, line in a.statements]} for a in anchors],
        "elsewhere": rulebook.elsewhere(rule.id),
        "python": [{"file": path, "lines": lines} for path, lines in python.items()],
        "profiles": [{"profile": o.profile, "section": f"docs/profiles.md {o.section}", "text": o.text}
                     for o in overrides],
        "example": _example(rule.id, profile),
    }


def _example(rule_id: str, profile: str | None) -> dict | None:
    """The smallest case citing the rule: of `profile` if it has one, else of any."""
    cases = rulebook.cases_citing(rulebook.cases_dir()).get(rule_id, [])
    case = next((c for c in cases if c.profile == profile), cases[0] if cases else None)
    if case is None:
        return None
    import yaml  # the case's files

    spec = yaml.safe_load((case.path / CASE_FILE).read_text(encoding="utf-8"))
    manifests = case.path / MANIFESTS_FILE
    shown = os.path.relpath(manifests) if manifests.is_relative_to(Path.cwd()) else str(manifests)
    return {
        "case": case.path.name,
        "description": spec["description"],
        "rules": list(case.rules),
        "profile": case.profile,
        "objects": case.objects,
        "command": "ome-asp " + shlex.join(case_argv(spec["check"][0], spec["query"], case.profile, shown)),
        "manifests": manifests.read_text(encoding="utf-8"),
        "expected": (case.path / EXPECTED_FILE).read_text(encoding="utf-8"),
    }


def text(document: dict) -> str:
    out = [f"{document['id']} — {document['title']}  (docs/spec.md, {document['section']})", "",
           document["statement"], "", "ASP rules (encoding/):"]
    if document["elsewhere"]:
        out.append(f"  none: {document['elsewhere']}")
    for anchor in document["encoding"]:
        out.append(f"  {anchor['file']}:{anchor['line']}: {anchor['comment']}")
        out += [f"    {s['line']:>4}  {s['text']}" for s in anchor["statements"]]
    if document["python"]:
        out += ["", "Python:"] + [f"  {p['file']}: {', '.join(map(str, p['lines']))}" for p in document["python"]]
    out += ["", "Profiles:"]
    out += [f"  {p['profile']} ({p['section']}): {p['text']}" for p in document["profiles"]] or [
        "  none changes it: every profile applies it as written"]
    example = document["example"]
    out += ["", "Smallest example:"]
    if example is None:
        out.append("  no conformance case cites it")
    else:
        out += [f"  {example['case']} ({example['objects']} objects, profile {example['profile']}, "
                f"rules {', '.join(example['rules'])})", f"  {example['description']}", "",
                f"  $ {example['command']}", "", "  manifests:"]
        out += [f"    {line}".rstrip() for line in example["manifests"].splitlines()]
        out += ["", "  expected:"] + [f"    {line}".rstrip() for line in example["expected"].splitlines()]
    return "\n".join(out) + "\n"
