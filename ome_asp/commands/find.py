"""`ome-asp find`: check the specification itself (issue 14, docs/find.md).

    ome-asp find --differ v1.3,code-v0.1.5 [--on selected|order|rows|reasons]
    ome-asp find --differ-encoding DIR
    ome-asp find --property NAME
    ome-asp find --where FILE.lp

searches the clusters within the bounds for the smallest one on which the
condition holds and verifies it as a user would see it
(ome_asp/analysis/find.py); this module reads the flags into a question,
renders the witness and writes it as conformance cases (--out). Exit 0: a
witness; 1: none within the bounds; 2: usage; 3: internal error. With
--check, and with -o junit|sarif|github (a check per condition,
render/ci.py), as a CI check: 0 none within the bounds, 1 a witness (D-241).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import BinaryIO, TextIO

import clingo

from ome_asp.analysis import batch, find
from ome_asp.analysis.find import PROPERTIES, Found, Question, Side
from ome_asp.commands.bounds_flags import add_bounds_flags, bounds_of, bounds_text, searchable
from ome_asp.commands.options import add_jobs_flag, add_profile_flags, profile_of
from ome_asp.errors import Exit, UsageError
from ome_asp.input import profiles
from ome_asp.input.documents import shown
from ome_asp.render import case_files, report
from ome_asp.solver import engine, finder, programs, space


def question(args: argparse.Namespace) -> Question:
    chosen = [name for name in ("differ", "differ_encoding", "property") if getattr(args, name) is not None]
    if len(chosen) > 1:
        raise UsageError("give one of --differ, --differ-encoding, --property (and --where to restrict it)")
    if not chosen and args.where is None:
        raise UsageError("no condition: give --differ A,B, --differ-encoding DIR, --property NAME or --where FILE.lp")
    if args.on is not None and not (chosen and chosen[0] in ("differ", "differ_encoding")):
        raise UsageError("--on applies to --differ and --differ-encoding")
    where = _where(args.where)
    directory = _encoding(args.encoding, "--encoding") if args.encoding is not None else programs.encoding_dir()
    conditions = finder.find_dir()
    on = args.on or "selected"
    if args.differ is not None:
        if args.profile is not None or args.ome_version is not None:
            raise UsageError("--differ names both profiles: leave out --profile and --ome-version")
        if args.encoding is not None:
            raise UsageError("--differ compares profiles of one encoding: leave out --encoding")
        names = args.differ.split(",")
        if len(names) != 2 or names[0] == names[1] or any(n not in profiles.PROFILES for n in names):
            raise UsageError(f"--differ: two different profiles of {', '.join(profiles.PROFILES)}, as A,B")
        sides = [Side(n, profiles.resolve(n, None), directory) for n in names]
        return Question({"differ": names, "on": on}, sides, [conditions / "answers.lp", conditions / "differ.lp"],
                        f"differ_on({on}).\n", where, on in ("rows", "reasons"), find.differ_check(names[0], names[1], on))
    profile = profile_of(args)
    if args.differ_encoding is not None:
        edited = _encoding(args.differ_encoding, "--differ-encoding")
        sides = [Side("encoding", profile, directory), Side(args.differ_encoding, profile, edited)]
        return Question({"differEncoding": str(edited), "on": on, "profile": profile.name}, sides,
                        [conditions / "answers.lp", conditions / "differ.lp"], f"differ_on({on}).\n", where, on in ("rows", "reasons"),
                        find.differ_check("encoding", args.differ_encoding, on))
    if args.property is not None:
        prop = PROPERTIES.get(args.property)
        if prop is None:
            raise UsageError(f"--property: {args.property!r} is not one of {', '.join(PROPERTIES)}")
        sides = [Side("before", profile, directory), Side("after", profile, directory,
                                                            extra=prop.variant == "add_disabled",
                                                            raise_winner=prop.variant == "raise_winner")] \
            if prop.variant else [Side(profile.name, profile, directory)]
        return Question({"property": args.property, "rules": prop.rules, "profile": profile.name}, sides,
                        [conditions / "answers.lp", conditions / "properties" / f"{args.property}.lp"], "", where, False,
                        lambda found: prop.violated(found.answers, found.documents), {"variant": prop.variant})
    return Question({"where": str(args.where), "profile": profile.name}, [Side(profile.name, profile, directory)],
                    [conditions / "answers.lp"], "", where, True, None)


def _encoding(path: str, flag: str) -> Path:
    directory = Path(path)
    if not (directory / programs.MAIN_LP).is_file():
        raise UsageError(f"{flag}: {path} is not an encoding directory (no {programs.MAIN_LP})")
    return directory.resolve()


#: What a --where file may hold (docs/find.md): rules and constraints. Every
#: other statement would change what is searched or re-checked unseen
#: (#program: a part the re-check never grounds; #const, #external: values or
#: atoms of the encoding; #minimize, #heuristic: the search itself; #show:
#: the worlds' outputs), runs code (#script) or reads another file (#include).
_DIRECTIVES = {
    clingo.ast.ASTType.Program: "#program", clingo.ast.ASTType.Script: "#script",
    clingo.ast.ASTType.Definition: "#const", clingo.ast.ASTType.External: "#external",
    clingo.ast.ASTType.Heuristic: "#heuristic", clingo.ast.ASTType.Minimize: "#minimize",
    clingo.ast.ASTType.ShowSignature: "#show", clingo.ast.ASTType.ShowTerm: "#show",
    clingo.ast.ASTType.Defined: "#defined", clingo.ast.ASTType.Edge: "#edge",
    clingo.ast.ASTType.ProjectAtom: "#project", clingo.ast.ASTType.ProjectSignature: "#project",
    clingo.ast.ASTType.TheoryDefinition: "#theory",
}
#: Strings and comments, where `#include` is only text.
_NOT_CODE = re.compile(r'"(?:\\.|[^"\\])*"|%\*.*?\*%|%[^\n]*', re.S)
WHERE_MAX_BYTES = 2**20


def _where(path: str | None) -> Path | None:
    """--where's file, checked to hold only rules and constraints; a usage
    error naming the first statement that is not one (issue 28)."""
    if path is None:
        return None
    where, named = Path(path), shown(path, cut=False)
    if not where.is_file():  # also a FIFO or a device: never opened
        raise UsageError(f"--where: {named}: no such file")
    with where.open("rb") as file:
        data = file.read(WHERE_MAX_BYTES + 1)
    if len(data) > WHERE_MAX_BYTES:
        raise UsageError(f"--where: {named}: larger than 1Mi")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"--where: {named}: not valid UTF-8: byte 0x{data[error.start]:02x}") from None
    # clingo's parser follows #include as it reads: refused before parsing
    if "#include" in _NOT_CODE.sub(" ", text):
        raise UsageError(f"--where: {named}: #include is not allowed: a condition holds rules and constraints only "
                         "(docs/find.md)")
    messages: list[str] = []
    statements: list = []
    try:
        clingo.ast.parse_string(text, statements.append, logger=lambda code, message: messages.append(message))
    except RuntimeError:
        # clingo's own message, on one line and naming the file (never printed raw)
        first = " ".join(messages[0].split()).removeprefix("<string>:") if messages else " cannot parse it"
        raise UsageError(f"--where: {named}:{first}") from None
    for statement in statements[1:]:  # the first is the `#program base.` clingo reports for every program
        if statement.ast_type not in (clingo.ast.ASTType.Rule, clingo.ast.ASTType.Comment):
            directive = _DIRECTIVES.get(statement.ast_type, str(statement.ast_type).rpartition(".")[2])
            raise UsageError(f"--where: {named}:{statement.location.begin.line}: {directive} is not allowed: "
                             "a condition holds rules and constraints only (docs/find.md)")
    return where


def where_warnings(where: Path | None, directory: Path) -> list[str]:
    """An atom a --where rule reads that neither the encoding (its heads and
    input facts, the generator's) nor the file itself defines is false in
    every cluster: `not p` then holds everywhere and `p` nowhere (issue 28)."""
    if where is None:
        return []
    defined: set[tuple[str, int]] = set()
    for file in [*directory.glob("*.lp"), *finder.find_dir().rglob("*.lp")]:
        for statement in engine.statements(str(file)):
            defined |= _atoms(statement, heads=True)
    read: set[tuple[str, int]] = set()
    for statement in engine.statements(str(where)):
        defined |= _atoms(statement, heads=True)
        read |= _atoms(statement, heads=False)
    return [f"--where: {shown(str(where), cut=False)}: {name}/{arity} is defined nowhere (no atom of the encoding "
            "or the input): it never holds" for name, arity in sorted(read - defined)]


def _atoms(statement: clingo.ast.AST, heads: bool) -> set[tuple[str, int]]:
    """The predicates of a rule's head (heads; #defined and #external define
    too) or of its body."""
    kind = statement.ast_type
    if kind == clingo.ast.ASTType.Defined:
        return {(statement.name, statement.arity)} if heads else set()
    if kind == clingo.ast.ASTType.External:
        parts = [statement.atom] if heads else []
    elif kind == clingo.ast.ASTType.Rule:
        parts = [statement.head] if heads else list(statement.body)
    else:
        return set()
    found: set[tuple[str, int]] = set()
    while parts:
        node = parts.pop()
        if isinstance(node, clingo.ast.AST):
            if node.ast_type == clingo.ast.ASTType.SymbolicAtom and node.symbol.ast_type == clingo.ast.ASTType.Function:
                found.add((node.symbol.name, len(node.symbol.arguments)))
            parts.extend(getattr(node, key) for key in node.child_keys)
        elif isinstance(node, (list, tuple, clingo.ast.ASTSequence)):
            parts.extend(node)
    return found



# --- output --------------------------------------------------------------------


def describe_selection(selection: dict) -> str:
    """What select answers (as a conformance case records it), in one line."""
    if "error" in selection:
        return f"error: {selection['error']}"
    used = selection["selected"]
    head = f"uses {used['kind']} {used['name']}" if used else f"uses no runtime: {selection['message']}"
    admission = selection["admission"]
    notes = [f"admission denied: {admission['denial']}"] if not admission["allowed"] else []
    notes += [f"warning: {w}" for w in selection["warnings"]]
    if selection["condition"] is not None:
        c = selection["condition"]
        notes.append(f"RuntimeReady={c['status']} ({c['reason']})")
    notes += [f"event {e['reason']}: {e['message']}" for e in selection["events"]]
    return "; ".join([head, *notes])


def describe_answer(answer: dict) -> str:
    if "error" in answer:
        return f"error: {answer['error']}"
    if "outcome" in answer:
        return f"outcome {answer['outcome']}: {answer['detail']}"
    rows = find.yes_rows(answer)
    selected = answer["selected"]
    head = f"selects {selected['kind']} {selected['name']}" if selected else "selects no runtime"
    order = ", ".join(f"{r['kind']} {r['runtime']} (score {r['score']})" for r in rows)
    rejected = ", ".join(f"{r['kind']} {r['runtime']} ({r['failedCheck']})" for r in answer["rows"] if not r["compatible"])
    return head + (f"; order: {order}" if order else "") + (f"; not qualifying: {rejected}" if rejected else "")


def condition_text(q: Question) -> str:
    d = q.description
    if "differ" in d:
        text = f"--differ {','.join(d['differ'])} --on {d['on']}"
    elif "differEncoding" in d:
        text = f"--differ-encoding {d['differEncoding']} --on {d['on']} (profile {d['profile']})"
    elif "property" in d:
        text = f"--property {d['property']} ({d['rules']}; profile {d['profile']})"
    else:
        text = f"profile {d['profile']}"
    return text + (f" --where {q.where}" if q.where is not None else "")


def render_yaml(found: Found) -> str:
    q = found.question
    lines = [f"# ome-asp find {condition_text(q)}", f"# bounds: {bounds_text(found.bounds)}",
             f"# clusters within the bounds: {space.describe(find.clusters(q, found.bounds))}"]
    if found.witness is None:
        verdict = "no violation" if "property" in q.description else "no cluster satisfies the condition"
        lines.append(f"# {verdict} within these bounds (the property holds up to the bounds)"
                     if "property" in q.description else f"# {verdict} within these bounds")
        return "\n".join(lines) + "\n"
    cost = ", ".join(f"{name.replace('_', ' ')} {value}" for name, value in found.witness.cost)
    query = found.query
    target = f"--isvc {query['isvc']}" if "isvc" in query else f"--model {query['model']}"
    asked = "explain and select" if found.bounds.isvc else "explain"
    lines.append(f"# smallest witness ({cost}); query: {asked} {target} -n {query['namespace']}")
    for side in q.sides:
        lines.append(f"# {side.name}: {describe_answer(found.answers[side.name])}")
        if side.name in found.selections:
            lines.append(f"# {side.name}: select {describe_selection(found.selections[side.name])}")
    if found.witness.extra:
        lines.append("# after: the same cluster and this disabled runtime:")
        lines += [f"#   {line}" for line in case_files.dump_manifests(found.witness.extra).splitlines()]
    if any(s.raise_winner for s in q.sides):
        lines.append("# after: the same cluster with every entry of the selected runtime at its priority + 1")
    return "\n".join(lines) + "\n" + case_files.dump_manifests(found.witness.documents)


def to_document(found: Found) -> dict:
    return {
        "apiVersion": report.API_VERSION,
        "kind": "FindReport",
        "condition": found.question.description,
        "bounds": {**found.bounds.to_json(), **space.to_json(find.clusters(found.question, found.bounds))},
        "found": found.witness is not None,
        "query": found.query,
        "cost": dict(found.witness.cost) if found.witness else None,
        "manifests": found.witness.documents if found.witness else None,
        "answers": found.answers if found.witness else None,
        **({"selections": found.selections if found.witness else None} if found.bounds.isvc else {}),
    }


def write_cases(found: Found, directory: Path) -> None:
    """The witness as one conformance case per side (the `check` format),
    expecting the answers it was verified with."""
    query = found.query
    for side in found.question.sides:
        explained = found.answers[side.name]
        answers = {"explain": explained if "error" in explained else case_files.explain_answer(explained)}
        if found.bounds.isvc:
            answers["select"] = found.selections[side.name]
        documents = find.side_documents(found, side)
        spec = {
            "description": f"find {condition_text(found.question)}: side {side.name}",
            "rules": case_files.exercised_rules(documents, query, answers) or ["O5"],
            "profile": side.profile.name,
            "query": query,
            "check": list(answers),
        }
        case_files.write(directory / re.sub(r"[^A-Za-z0-9._-]+", "_", side.name).strip("_"), spec, documents, answers)


# --- the command line ------------------------------------------------------------


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "find",
        help="search small clusters for one where two specifications disagree or a property breaks",
        description="Find the smallest cluster, within the bounds, on which a condition holds (docs/find.md); "
        "every witness is verified with the ordinary loader and explain.",
    )
    parser.add_argument("--differ", metavar="A,B", help="two profiles that answer differently")
    parser.add_argument("--differ-encoding", metavar="DIR", help="an edited copy of encoding/ that answers differently")
    parser.add_argument("--on", choices=find.LEVELS, default=None,
                        help="what must differ: the selected runtime (default), the order, the rows, the reasons")
    parser.add_argument("--property", metavar="NAME", help=f"a violation of a catalogued property: {', '.join(PROPERTIES)}")
    parser.add_argument("--where", metavar="FILE.lp", help="your own condition: constraints over the shown atoms of a world")
    parser.add_argument("--encoding", metavar="DIR",
                        help="the encoding the worlds run (default: ome-asp's encoding/); --differ-encoding compares it with DIR")
    add_bounds_flags(parser, f"{finder.Bounds.runtimes}; 1 for adding-disabled-runtime-changes-nothing")
    parser.add_argument("-o", "--output", choices=("yaml", "json", "junit", "sarif", "github"), default="yaml",
                        help="junit, sarif, github: the condition as one check for CI, failed by a witness (implies --check)")
    parser.add_argument("--check", action="store_true",
                        help="exit as a CI check: 0 when no cluster within the bounds satisfies the condition "
                             "(the property holds), 1 when one does (default: 0 for a witness, 1 for none, as diff)")
    parser.add_argument("--out", metavar="DIR", help="also write the witness as a conformance case per side")
    add_jobs_flag(parser, "decide whether a witness exists", "threads")
    add_profile_flags(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, stdin: BinaryIO, stdout: TextIO, stderr: TextIO) -> int:
    q, bounds = question(args), bounds_of(args)
    for warning in where_warnings(q.where, q.sides[0].encoding):
        print(f"warning: {warning}", file=stderr)
    searchable([side.profile for side in q.sides], bounds)
    found = find.run_question(q, bounds, args.jobs or batch.default_jobs())
    if args.output == "json":
        report.dump(to_document(found), "json", stdout)
    elif args.output == "yaml":
        stdout.write(render_yaml(found))
    else:
        from ome_asp.render import ci

        rule = q.description.get("property") or next(iter(q.description))  # the property, or differ, where, ...
        statement = PROPERTIES[rule].statement if rule in PROPERTIES else f"no cluster within the bounds satisfies {rule}"
        finding = ci.Finding(rule, condition_text(q), ci.PASS if found.witness is None else ci.ERROR, render_yaml(found))
        stdout.write(ci.render(args.output, [finding], {rule: statement}, f"ome-asp find {condition_text(q)}"))
    if found.witness is not None and args.out is not None:
        write_cases(found, Path(args.out))
    if args.check or args.output not in ("yaml", "json"):
        return Exit.OK if found.witness is None else Exit.NEGATIVE
    return Exit.OK if found.witness is not None else Exit.NEGATIVE
