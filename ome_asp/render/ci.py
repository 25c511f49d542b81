"""The CI formats every command shares (issue 37): a run's checks as JUnit XML
(`-o junit`), SARIF 2.1.0 (`-o sarif`, for code scanning) and GitHub workflow
annotations (`-o github`).

A command turns its answer into `Finding`s -- one per thing it checked (a
model's selection, a runtime's admission, a property, a changed query), each
passed or failed at the file and line of the object it is about -- and this
module only writes them; nothing here decides what fails (D-240).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import quote as uri_quote

from ome_asp import __version__
from ome_asp.input.changes import Place
from ome_asp.input.objects import Cluster, Query, RuntimeRef, Source
from ome_asp.records import record
from ome_asp.render import compare, reasons, report
from ome_asp.solver.answer import QueryAnswer

#: The formats, as -o names them.
FORMATS = ("junit", "sarif", "github")
#: A finding's levels: what failed (error), what a reviewer should see (warning), what passed.
ERROR, WARNING, PASS = "error", "warning", "pass"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/sgl-project/ome"


@record(frozen=True)
class Finding:
    """One check of a run: what rule, about which object or query, passed or
    failed, and where the reviewer opens it (None where no file has it: stdin,
    a live cluster, a witness find generated)."""

    rule: str  # what was checked: "selection", "admission", a property's name, compare's change kind
    subject: str  # the object or query, as the text output names it
    level: str  # ERROR, WARNING or PASS
    message: str
    file: str | None = None
    line: int | None = None


def at(source: Source | None) -> tuple[str | None, int | None]:
    """The file and line of an object read from a file the reviewer can open,
    the file relative to the working directory where it lies under it (CI runs
    in the repository's root, and code scanning and annotations name files
    from there); (None, None) for stdin, kubectl's output and a serve
    request's documents."""
    if source is None or source.json_path or source.line is None:
        return None, None
    return _opened(source.file), source.line


def _opened(file: str) -> str | None:
    """`at`'s name of a file: relative to the working directory where it lies
    under it; None where it is no file (stdin, kubectl's output)."""
    if not os.path.isfile(file):
        return None
    relative = os.path.relpath(file)
    return file if relative.startswith(os.pardir + os.sep) else relative


def failed(findings: Iterable[Finding]) -> bool:
    return any(f.level == ERROR for f in findings)


# --- the checks explain and admit make -----------------------------------------

SELECTION, ADMISSION = "selection", "admission"
RULES = {
    SELECTION: "the model is served by a runtime: some runtime qualifies (O8), no error or outcome ends its query",
    ADMISSION: "the runtime admission webhook admits the runtime (W1-W6, I9)",
}


def model_sources(cluster: Cluster) -> dict[tuple[str | None, str], Source]:
    """Each model's place by (namespace, name); a ClusterBaseModel's namespace is None."""
    return {(m.namespace, m.name): m.source for m in cluster.models}


def runtime_sources(cluster: Cluster) -> dict[RuntimeRef, Source]:
    return {RuntimeRef(r.kind, r.namespace, r.name): r.source for r in cluster.runtimes}


def selection(query: Query, answer: QueryAnswer, models: dict[tuple[str | None, str], Source]) -> Finding:
    """explain --all-models' check of one model, at the model's line (M1: the
    namespace's BaseModel, else the ClusterBaseModel)."""
    name = query.model or ""  # --all-models asks by model
    file, line = at(models.get((query.namespace, name)) or models.get((None, name)))
    subject = f"--model {name} -n {query.namespace}"
    if answer.error is not None:
        return Finding(SELECTION, subject, ERROR, reasons.text(answer.error), file, line)
    if answer.ended is not None:
        return Finding(SELECTION, subject, ERROR, "outcome {}: {}".format(*answer.ended), file, line)
    if not answer.ranking:
        return Finding(SELECTION, subject, ERROR, report.no_runtime_message(answer, query.namespace) or "", file, line)
    return Finding(SELECTION, subject, PASS, f"selects {answer.ranking[0]}", file, line)


#: compare's rules: each kind of change (render/compare.py's CHANGE_KINDS), and none
CHANGES = {
    "lost": "a query that had a runtime keeps one (not no runtime, an error or an outcome)",
    "moved": "a query keeps its runtime (not another)",
    "changed": "a query's error or outcome stays as it was",
    "gained": "a query without a runtime stays without one",
    "unchanged": "the query keeps its answer",
}


def comparison(result: compare.Comparison, gate: compare.Verdict) -> list[Finding]:
    """compare's checks, one per query: a changed one fails when --fail-on's
    gate names its kind (else a warning), at the file and line of its first
    cause's first change that has one (the later snapshot's, the earlier's
    for a removal: compare.places; a git revision's file by its path from
    the repository's top, as its JSON names it); one that keeps its answer
    passes."""
    findings = []
    earlier, later = result.labels
    for item in result.items:
        kind = compare.change_kind(item)
        cause = item.causes[0] if item.causes else []
        place = next((p for edit in cause for p in compare.places(edit)), None)
        file, line = (None, None) if place is None else (_placed_file(place, result), place.line)
        message = (f"{compare.answer_text(item.before)} ({earlier}) → {compare.answer_text(item.after)} ({later})"
                   + ("; cause: " + "; ".join(edit.describe() for edit in cause) if cause else ""))
        findings.append(Finding(kind, _target(item.query), ERROR if kind in gate.gate else WARNING, message,
                                file, None if file is None else line))
    return findings + [Finding("unchanged", _target(query), PASS, f"keeps {compare.answer_text(answer)}")
                       for query, answer in result.unchanged]


def _placed_file(place: Place, result: compare.Comparison) -> str | None:
    file, revision = compare.within(place.side, place.file, result)
    return file if revision is not None else _opened(file)


def _target(query: Query) -> str:
    return f"--model {query.model} -n {query.namespace}" if query.model is not None else f"--isvc {query.isvc} -n {query.namespace}"


def admission(verdicts: Iterable[tuple[RuntimeRef, str | None]], runtimes: dict[RuntimeRef, Source]) -> list[Finding]:
    """Each runtime's admission (admit's verdicts, or explain's denials), at its line."""
    return [Finding(ADMISSION, str(runtime), PASS if message is None else ERROR,
                    "admitted" if message is None else f"denied by admission: {message}", *at(runtimes.get(runtime)))
            for runtime, message in verdicts]


def render(output: str, findings: list[Finding], rules: dict[str, str], title: str) -> str:
    """`findings` in the format `output`; `rules`: each rule's one-line
    description (SARIF's rules, JUnit's suites), in the order to list them;
    `title`: the run, as the suites' name."""
    if output == "junit":
        return junit(findings, rules, title)
    if output == "sarif":
        return sarif(findings, rules)
    return github(findings)


# --- JUnit ----------------------------------------------------------------------


def junit(findings: list[Finding], rules: dict[str, str], title: str) -> str:
    """One <testsuite> per rule (in `rules`' order, empty ones left out), one
    <testcase> per finding: a failure for an error, system-out for a warning.
    `file` and `line` as pytest's xunit1 family writes them."""
    from xml.etree import ElementTree as ET

    by_rule: dict[str, list[Finding]] = {rule: [] for rule in rules}
    for finding in findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    root = ET.Element("testsuites", name=title, tests=str(len(findings)),
                      failures=str(sum(f.level == ERROR for f in findings)), errors="0")
    for rule, cases in by_rule.items():
        if not cases:
            continue
        suite = ET.SubElement(root, "testsuite", name=rule, tests=str(len(cases)),
                              failures=str(sum(f.level == ERROR for f in cases)), errors="0", skipped="0")
        for finding in cases:
            case = ET.SubElement(suite, "testcase", name=finding.subject, classname=rule)
            if finding.file is not None:
                case.set("file", finding.file)
                case.set("line", str(finding.line))
            if finding.level == ERROR:
                ET.SubElement(case, "failure", message=_one_line(finding.message), type=rule).text = _placed(finding)
            elif finding.level == WARNING:
                ET.SubElement(case, "system-out").text = f"warning: {_placed(finding)}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _placed(finding: Finding) -> str:
    return finding.message if finding.file is None else f"{finding.file}:{finding.line}: {finding.message}"


def _one_line(text: str) -> str:
    return " ".join(text.split())


# --- SARIF ----------------------------------------------------------------------


def sarif(findings: list[Finding], rules: dict[str, str]) -> str:
    """A SARIF 2.1.0 log of one run: a result per finding that did not pass,
    at its file and line (a relative URI, as code scanning wants) and named
    by its object (a logical location)."""
    import json

    ids = list(rules) + sorted({f.rule for f in findings} - set(rules))
    results = []
    for finding in findings:
        if finding.level == PASS:
            continue
        location: dict = {"logicalLocations": [{"fullyQualifiedName": finding.subject}]}
        if finding.file is not None:
            location["physicalLocation"] = {"artifactLocation": {"uri": _uri(finding.file)},
                                            "region": {"startLine": finding.line}}
        results.append({"ruleId": finding.rule, "ruleIndex": ids.index(finding.rule), "level": finding.level,
                        "message": {"text": finding.message}, "locations": [location]})
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "ome-asp", "version": __version__, "informationUri": INFORMATION_URI,
                                "rules": [{"id": rule, "shortDescription": {"text": rules.get(rule, rule)}}
                                          for rule in ids]}},
            "results": results,
        }],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _uri(path: str) -> str:
    """A file (`at`'s) as a URI reference: relative where it is, else a file:
    URI; / separators, percent-encoded."""
    posix = path.replace(os.sep, "/")
    return ("file://" if os.path.isabs(path) else "") + uri_quote(posix)


# --- GitHub workflow annotations -------------------------------------------------

_LEVEL = {ERROR: "error", WARNING: "warning"}


def github(findings: list[Finding]) -> str:
    """`::error file=F,line=L,title=T::MESSAGE` for each finding that did not
    pass, escaped as GitHub's toolkit escapes them (@actions/core: `%`, CR
    and LF in the message; also `:` and `,` in a property)."""
    lines = []
    for finding in findings:
        if finding.level == PASS:
            continue
        properties = [] if finding.file is None else [f"file={_property(finding.file)}", f"line={finding.line}"]
        properties.append(f"title={_property(f'{finding.rule}: {finding.subject}')}")
        lines.append(f"::{_LEVEL[finding.level]} {','.join(properties)}::{_data(finding.message)}\n")
    return "".join(lines)


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
