"""`ome-asp gen`: write random conformance cases whose expectations ome-asp computes.

    ome-asp gen --count N --seed S -o DIR [--profile P] [-j N]

Case i is the cluster and query that `ome_asp.testing.builders.cluster` builds
from `random.Random("S:i")` (the same builders the Hypothesis strategies of
`ome_asp.testing.strategies` wrap), so a seed always gives the same cases, on
any machine and without Hypothesis. Each case checks `explain`, plus `select`
for an InferenceService query and `admit` when a runtime is denied; its
`rules` are the spec rule ids the answers show were exercised
(`exercised_rules`). The output passes `ome-asp check DIR`. Cases are
answered BATCH_CASES at a time, each batch's cases grounded together as
worlds (ome_asp/solver/worlds.py), the batches in `-j N` processes (default:
the cores gen may use; the output is the same for every N).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path
from typing import TextIO

from ome_asp.commands import batch
from ome_asp.conformance import cases
from ome_asp.errors import Exit, UsageError
from ome_asp.solver import worlds
from ome_asp.testing.builders import RandomChooser, cluster

BATCH_CASES = 64


def add_parser(commands) -> argparse.ArgumentParser:
    """Register `gen` on the CLI's subcommands."""
    parser = commands.add_parser(
        "gen",
        help="write random conformance cases with the answers ome-asp computes",
        description="Write N random cases (cluster, query, ome-asp's answers) as case directories, "
        "deterministically for a seed, and report the rule ids they exercise.",
    )
    parser.add_argument("--count", type=int, required=True, metavar="N", help="how many cases")
    parser.add_argument("--seed", type=int, required=True, metavar="S", help="the seed: the same seed gives the same cases")
    parser.add_argument("-o", "--output", required=True, metavar="DIR", help="directory to write the cases into")
    parser.add_argument("--profile", default=cases.DEFAULT_PROFILE, choices=cases.PROFILES, help="the profile of the expectations")
    batch.add_jobs_flag(parser, "answer the cases")
    parser.set_defaults(run=run)
    return parser


def generate(seed: int, index: int) -> tuple[list[dict], dict]:
    """The documents and query of case `index` of seed `seed`."""
    return cluster(RandomChooser(f"{seed}:{index}"))


def build_cases(generated: list[tuple[list[dict], dict]], profile: str) -> list[tuple[dict, dict]]:
    """(case.yaml, expected.yaml) of each cluster and query, answered by
    ome-asp: all of them together (`cases.answers`, one world each)."""
    requests = []
    for documents, query in generated:
        manifests = cases.dump_manifests(documents).encode()
        commands = ("explain", "select", "admit") if "isvc" in query else ("explain", "admit")
        requests += [(command, manifests, query, profile, ()) for command in commands]
    found = iter(cases.answers(requests))
    built = []
    for documents, query in generated:
        answers = {"explain": next(found)}
        if "isvc" in query:
            answers["select"] = next(found)
        admission = next(found)
        if any(not item["allowed"] for item in admission.get("items", [])):
            answers["admit"] = admission
        spec = {
            "description": describe(query, answers["explain"]),
            "rules": exercised_rules(documents, query, answers),
            "profile": profile,
            "query": query,
            "check": list(answers),
        }
        built.append((spec, answers))
    return built


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    if args.count < 1:
        raise UsageError("--count must be at least 1")
    counts: Counter = Counter()

    def built(start: int) -> list[tuple[list[dict], dict, dict]]:
        """(documents, case.yaml, expected.yaml) of the cases from `start` on, one batch."""
        generated = [generate(args.seed, index) for index in range(start, min(start + BATCH_CASES, args.count))]
        return [(documents, *case) for (documents, _), case in zip(generated, build_cases(generated, args.profile))]

    starts = range(0, args.count, BATCH_CASES)
    jobs = min(args.jobs or batch.default_jobs(), len(starts))
    if jobs > 1:
        worlds.compile_all()  # once, before the fork: every worker inherits it
    for start, cases_built in zip(starts, batch.run(built, list(starts), jobs)):
        for index, (documents, spec, answers) in enumerate(cases_built, start):
            counts.update(spec["rules"])
            cases.write(Path(args.output) / f"gen-{args.seed}-{index:04d}", spec, documents, answers)
    print(f"wrote {args.count} cases to {args.output} (seed {args.seed}, profile {args.profile})", file=stdout)
    print(f"rules exercised: {len(counts)}", file=stdout)
    for family, ids in _by_family(counts).items():
        print(f"  {family}: " + " ".join(f"{rule}×{counts[rule]}" for rule in ids), file=stdout)
    return Exit.OK


def describe(query: dict, explain: dict) -> str:
    target = f"--isvc {query['isvc']}" if "isvc" in query else f"--model {query['model']}"
    if "error" in explain:
        outcome = "an error"
    else:
        rows = len(explain["ranking"]) + len(explain["rejected"])
        selected = explain["selected"]["name"] if explain["selected"] else "none"
        outcome = f"{rows} candidates, {len(explain['ranking'])} qualify, selected {selected}"
    return f"generated: explain {target} -n {query['namespace']}: {outcome}"


# --- which rules a case exercises -----------------------------------------------

# Pieces of a No row's reason -> the rules that produced them.
_REASON_RULES = [
    (r"runtime is disabled", "Q2 I5"),
    (r"accelerator class", "Q3 A1 A3"),
    (r"deployment mode", "Q4 D1 D2 D3 D4 D5"),
    (r"not in supported formats", "Q5 E15 E16"),
    (r"no supported formats defined", "Q5"),
    (r"diffusion pipeline required", "Q10 Q20"),
    (r"pipeline class mismatch", "Q10 Q21"),
    (r"(library|type) mismatch|component \S+ required", "Q10 Q22"),
    (r"additional components|diffusion component", "Q10 Q23"),
    (r"architecture", "Q11"),
    (r"quantization", "Q12"),
    (r"format name mismatch|format version", "Q13"),
    (r"framework", "Q14"),
    (r"model has no framework", "I7"),
    (r"version mismatch", "V1 V2 V5"),
    (r"outside supported range", "Q6 Z3 Z4"),
    (r"\(-inf|inf\)", "Z4"),
    (r"autoSelect=true entry", "Q7 Q18"),
    (r"not autoSelect-enabled", "Q8 Q17 S2"),
    (r"auto-select score is 0", "Q8 S1"),
]
_SELECT_RULES = [
    (r"will be auto-selected", "O9 O5"),
    (r"does not declare support", "X6"),
    (r"not found in namespace", "X3"),
    (r"runtime \S+ is disabled", "X4"),
    (r"model \S+ is disabled", "M3"),
    (r"no runtime found", "O8"),
    (r"no supporting runtime found", "O9"),
]


def _match(table: list, text: str, rules: set) -> None:
    for pattern, ids in table:
        if re.search(pattern, text):
            rules.update(ids.split())


def exercised_rules(documents: list[dict], query: dict, answers: dict) -> list[str]:
    """The spec rule ids a case exercises, read from its answers (which checks
    failed and why, the order, the errors) and what its manifests hold."""
    rules = {"I1", "I2", "I3", "I10"}
    explain = answers["explain"]
    if "error" in explain:
        message = explain["error"]
        rules.update(("E4", "M4") if "format name is required" in message else ())
        rules.update(("E4", "M2") if "not found" in message else ())
        rules.update(("E4", "M6") if "no spec.model" in message else ())
    else:
        rules.update(("M1", "Q1", "E7", "E8", "E10"))
        _explain_rules(query, explain, rules)
    for item in answers.get("admit", {}).get("items", []):
        if not item["allowed"]:
            rules.update(("I9", "W1"))
            rules.add("W3" if "accelerator" in item["message"] else "W4")
    selection = answers.get("select", {})
    if selection and "error" not in selection:
        rules.add("X1" if selection["explicit"] else "O5")
        texts = [selection["message"] or "", selection["admission"]["denial"] or ""] + selection["warnings"]
        for text in texts:
            _match(_SELECT_RULES, text, rules)
    _document_rules(documents, rules)
    return sorted(rules, key=lambda r: (r[0], int(r[1:])))


def _explain_rules(query: dict, explain: dict, rules: set) -> None:
    if "isvc" in query:
        rules.update(("A1", "A2", "D3"))
    else:
        rules.update(("A6", "D7"))
    ranking, rejected = explain["ranking"], explain["rejected"]
    if not ranking and not rejected:
        rules.add("E6")
    if ranking:
        rules.update(("S1", "S2", "S3", "Q16", "E9", "O5"))
    if rejected:
        rules.add("E14")
    if any(r["failedCheck"] in ("Q7", "Q8") for r in rejected):
        rules.add("Q9")
    if explain["message"]:
        rules.add("O8")
    for row in rejected:
        _match(_REASON_RULES, row["reason"], rules)
        rules.update(row["checks"])
    kinds = {r["kind"] for r in ranking}
    if len(kinds) == 2:
        rules.add("O1")
    rows = ranking + rejected
    if len({r["name"] for r in rows}) < len(rows):
        rules.update(("O6", "E17"))
    for before, after in zip(ranking, ranking[1:]):
        if before["kind"] != after["kind"]:
            continue
        if before["score"] != after["score"]:
            rules.add("O2")
        elif before["distance"] != after["distance"]:
            rules.update(("O3", "Z5"))
        else:
            rules.add("O4")
    if any(r["distance"] not in (None, "0") for r in ranking):
        rules.add("Z5")


def _document_rules(documents: list[dict], rules: set) -> None:
    """Rules the manifests exercise. A case diff shrank may lack any field
    (issue 16: an entry without modelFormat under code-v0.1.5), so every
    field is read as optional."""
    for document in documents:
        spec = _mapping(document.get("spec"))
        if "modelParameterSize" in spec or "modelSizeRange" in spec:
            rules.add("Z1")
        if any(not re.fullmatch(r"([0-9]+(\.[0-9]*)?|\.[0-9]+)[MBT]?", str(v))
               for v in [spec.get("modelParameterSize")] + list(_mapping(spec.get("modelSizeRange")).values()) if v is not None):
            rules.add("Z2")
        entries = spec.get("supportedModelFormats")
        for entry in entries if isinstance(entries, list) else []:
            entry = _mapping(entry)
            for part in ("modelFormat", "modelFramework"):
                side = _mapping(entry.get(part))
                weight = side.get("weight")
                if weight == 0:
                    rules.add("S3")
                if isinstance(weight, int) and weight < 0:
                    rules.add("S4")
                if side.get("operator") in ("GreaterThan", "GreaterThanOrEqual"):
                    rules.update(("V3", "V8"))
            if "priority" in entry:
                rules.add("S5")
        if document.get("kind") in ("BaseModel", "ClusterBaseModel") and "operator" in _mapping(spec.get("modelFormat")):
            rules.add("M5")


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def _by_family(counts: Counter) -> dict[str, list[str]]:
    families: dict[str, list[str]] = {}
    for rule in sorted(counts, key=lambda r: ("IMQVZADSOXWE".index(r[0]), int(r[1:]))):
        families.setdefault(rule[0], []).append(rule)
    return families
