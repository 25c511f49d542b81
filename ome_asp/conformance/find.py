"""`ome-asp find`: check the specification itself (issue 14, docs/find.md).

    ome-asp find --differ v1.3,code-v0.1.5 [--on selected|order|rows|reasons]
    ome-asp find --differ-encoding DIR
    ome-asp find --property NAME
    ome-asp find --where FILE.lp

searches the clusters within the bounds for the smallest one on which the
condition holds (ome_asp/solver/finder.py, encoding/find/), then verifies it
as a user would: the witness is written as manifests, read back by the
ordinary loader and run through the ordinary `explain` under each side, and
the condition is checked again on those answers. A witness that fails is an
internal error, never a result. Exit 0: a witness; 1: none within the
bounds; 2: usage; 3: internal error.

It lives with the conformance commands because it writes conformance cases
(--out) and answers through the CLI as `check` does (docs/decisions.md).
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable, TextIO

import clingo

from ome_asp.commands import batch
from ome_asp.commands.options import add_profile_flags, profile_of
from ome_asp.conformance import cases
from ome_asp.conformance.gen import exercised_rules
from ome_asp.errors import Exit, InternalError, UsageError
from ome_asp.input import profiles
from ome_asp.input.documents import quote, shown
from ome_asp.input.loader import load
from ome_asp.input.objects import unrepresentable
from ome_asp.input.sizes import is_go_size, is_size
from ome_asp.input.versions import parse_version
from ome_asp.render import report
from ome_asp.solver import ask, engine, finder, programs, space

LEVELS = ("selected", "order", "rows", "reasons")
WEIGHT_LIMIT = 2**40
QUERY = {"namespace": finder.NAMESPACE, "model": finder.MODEL_NAME}
ISVC_QUERY = {"namespace": finder.NAMESPACE, "isvc": finder.ISVC_NAME}


def query_of(bounds: finder.Bounds) -> dict:
    """What every world is asked: explain --model m, or with an InferenceService
    explain and select --isvc i (both in namespace default)."""
    return dict(ISVC_QUERY if bounds.isvc else QUERY)


# --- the answers a side gives, and what a condition compares of them --------


def runtime_key(kind: str, name: str) -> str:
    return f"{kind} {name}"


def view(answer: dict, on: str) -> dict:
    """What `--on` compares of one side's answer (encoding/find/differ.lp):
    the selected runtime (or the error or outcome ending the query) and,
    level by level, the order, the rows, the reasons."""
    if "error" in answer:
        return {"error": answer["error"]}
    if "outcome" in answer:
        return {"outcome": answer["outcome"], "detail": answer["detail"]}
    selected = answer["selected"]
    seen: dict = {"selected": selected and runtime_key(selected["kind"], selected["name"])}
    level = LEVELS.index(on)
    rows = answer["rows"]
    if level >= 1:
        seen["order"] = [runtime_key(r["kind"], r["runtime"]) for r in sorted(rows, key=lambda r: r["rank"] or 0)
                         if r["compatible"]]
    if level >= 2:
        seen["rows"] = sorted((runtime_key(r["kind"], r["runtime"]), "Yes", str(r["score"])) if r["compatible"]
                              else (runtime_key(r["kind"], r["runtime"]), "No", r["failedCheck"]) for r in rows)
    if level >= 3:
        seen["reasons"] = sorted((runtime_key(r["kind"], r["runtime"]), [[x["check"], x["message"]] for x in r["reasons"]])
                                 for r in rows)
    return seen


def _yes_rows(answer: dict) -> list[dict]:
    if "rows" not in answer:
        return []
    return sorted((r for r in answer["rows"] if r["compatible"]), key=lambda r: r["rank"])


def _number(value) -> Fraction:
    return Fraction(str(value))


def _csr_before_sr(answers: dict, documents: list[dict]) -> bool:
    kinds = [r["kind"] for r in _yes_rows(next(iter(answers.values())))]
    return "ServingRuntime" in kinds[kinds.index("ClusterServingRuntime"):] if "ClusterServingRuntime" in kinds else False


def _disabled_qualifies(answers: dict, documents: list[dict]) -> bool:
    disabled = {runtime_key(d["kind"], d["metadata"]["name"]) for d in documents if d["spec"].get("disabled") is True}
    return any(runtime_key(r["kind"], r["runtime"]) in disabled for r in _yes_rows(next(iter(answers.values()))))


def _selected_not_first(answers: dict, documents: list[dict]) -> bool:
    answer = next(iter(answers.values()))
    rows = _yes_rows(answer)
    if not rows:
        return False
    selected = answer["selected"]
    return selected is None or runtime_key(selected["kind"], selected["name"]) != runtime_key(rows[0]["kind"], rows[0]["runtime"])


def _tie(answers: dict, documents: list[dict]) -> bool:
    keys = [(r["kind"], -_number(r["score"]), _number(r["distance"] or 0), r["runtime"])
            for r in _yes_rows(next(iter(answers.values())))]
    return len(set(keys)) != len(keys)


def _zero_score_qualifies(answers: dict, documents: list[dict]) -> bool:
    return any(_number(r["score"]) <= 0 for r in _yes_rows(next(iter(answers.values()))))


def _winner_changes(answers: dict, documents: list[dict]) -> bool:
    before, after = answers["before"], answers["after"]
    return view(before, "selected") != view(after, "selected") and bool(before.get("selected"))


def _keys(answer: dict) -> list:
    return sorted((r["kind"], r["runtime"], _number(r["score"]), _number(r["distance"] or 0)) for r in _yes_rows(answer))


def _order_changes(answers: dict, documents: list[dict]) -> bool:
    """The order, or a qualifying runtime's key (its score or distance: the
    property's statement compares the keys, encoding/find/properties)."""
    before, after = answers["before"], answers["after"]
    return view(before, "order") != view(after, "order") or _keys(before) != _keys(after)


@dataclass(frozen=True)
class Property:
    """A catalogue entry (docs/find.md): the program stating its violation
    (encoding/find/properties/NAME.lp) and the same violation checked on the
    ordinary answers."""

    rules: str
    statement: str
    violated: Callable[[dict, list[dict]], bool]
    variant: str | None = None  # a second world: raise_winner | add_disabled
    runtimes: int = finder.Bounds.runtimes  # the default of --runtimes (docs/find.md, the catalogue)


PROPERTIES = {
    "namespaced-first": Property(
        "O1", "a qualifying ServingRuntime of the namespace ranks before every ClusterServingRuntime", _csr_before_sr),
    "disabled-never-selected": Property(
        "Q2, W2", "a runtime with spec.disabled: true never qualifies, so is never selected", _disabled_qualifies),
    "selected-is-first-of-order": Property(
        "O5", "the selected runtime is the first of the order; a query with a qualifying runtime selects one",
        _selected_not_first),
    "order-is-total": Property("O1-O4", "no two qualifying runtimes tie in the order", _tie),
    "zero-score-never-qualifies": Property("Q8, S1", "a runtime whose score is 0 or less does not qualify",
                                           _zero_score_qualifies),
    "raising-winner-priority-keeps-it-first": Property(
        "S5, W4", "raising the priority of every entry of the selected runtime by one keeps it selected",
        _winner_changes, "raise_winner"),
    "adding-disabled-runtime-changes-nothing": Property(
        "Q2, W2, O5", "adding a runtime with spec.disabled: true changes neither the selection nor the order",
        _order_changes, "add_disabled", runtimes=1),
}


# --- a question --------------------------------------------------------------


@dataclass
class Side:
    name: str
    profile: profiles.Profile
    encoding: Path
    extra: bool = False  # the side's cluster has the add_disabled runtime
    raise_winner: bool = False  # the side's cluster has the winner's priorities raised


@dataclass
class Question:
    description: dict  # the FindReport's condition
    sides: list[Side]
    files: list[Path]  # the condition's programs
    facts: str = ""  # the condition's parameters (differ_on/1)
    where: Path | None = None
    explain: bool = False  # the worlds need explanation.lp (rows, reasons)
    check: Callable[[Found], bool] | None = None  # the condition on the ordinary answers
    extra: dict = field(default_factory=dict)

    @property
    def compares(self) -> bool:
        """Two worlds' answers must differ (--differ, --differ-encoding)."""
        return finder.find_dir() / "differ.lp" in self.files


def question(args) -> Question:
    chosen = [name for name in ("differ", "differ_encoding", "property") if getattr(args, name) is not None]
    if len(chosen) > 1:
        raise UsageError("give one of --differ, --differ-encoding, --property (and --where to restrict it)")
    if not chosen and args.where is None:
        raise UsageError("no condition: give --differ A,B, --differ-encoding DIR, --property NAME or --where FILE.lp")
    if args.on is not None and not (chosen and chosen[0] in ("differ", "differ_encoding")):
        raise UsageError("--on applies to --differ and --differ-encoding")
    where = _where(args.where)
    directory = _encoding(args.encoding, "--encoding") if args.encoding is not None else programs.encoding_dir()
    find = finder.find_dir()
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
        return Question({"differ": names, "on": on}, sides, [find / "answers.lp", find / "differ.lp"],
                        f"differ_on({on}).\n", where, on in ("rows", "reasons"), differ_check(names[0], names[1], on))
    profile = profile_of(args)
    if args.differ_encoding is not None:
        edited = _encoding(args.differ_encoding, "--differ-encoding")
        sides = [Side("encoding", profile, directory), Side(args.differ_encoding, profile, edited)]
        return Question({"differEncoding": str(edited), "on": on, "profile": profile.name}, sides,
                        [find / "answers.lp", find / "differ.lp"], f"differ_on({on}).\n", where, on in ("rows", "reasons"),
                        differ_check("encoding", args.differ_encoding, on))
    if args.property is not None:
        prop = PROPERTIES.get(args.property)
        if prop is None:
            raise UsageError(f"--property: {args.property!r} is not one of {', '.join(PROPERTIES)}")
        sides = [Side("before", profile, directory), Side("after", profile, directory,
                                                            extra=prop.variant == "add_disabled",
                                                            raise_winner=prop.variant == "raise_winner")] \
            if prop.variant else [Side(profile.name, profile, directory)]
        return Question({"property": args.property, "rules": prop.rules, "profile": profile.name}, sides,
                        [find / "answers.lp", find / "properties" / f"{args.property}.lp"], "", where, False,
                        lambda found: prop.violated(found.answers, found.witness.documents), {"variant": prop.variant})
    return Question({"where": str(args.where), "profile": profile.name}, [Side(profile.name, profile, directory)],
                    [find / "answers.lp"], "", where, True, None)


def differ_check(a: str, b: str, on: str) -> Callable[[Found], bool]:
    """--differ's condition on the answers: explain's view at level `on` and,
    with an InferenceService, what select reports (find/select.lp)."""
    def seen(found: Found, side: str) -> tuple:
        return view(found.answers[side], on), found.selections.get(side)
    return lambda found: seen(found, a) != seen(found, b)


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


def _atoms(statement, heads: bool) -> set[tuple[str, int]]:
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


def bounds_of(args, defaults: dict = finder.DEFAULT_POOLS) -> finder.Bounds:
    """The bounds of add_bounds_flags' flags, on the `defaults` pools."""
    if args.runtimes is None:
        prop = PROPERTIES.get(args.property) if getattr(args, "property", None) is not None else None
        args.runtimes = prop.runtimes if prop is not None else finder.Bounds.runtimes
    if args.runtimes < 1 or args.entries < 1 or args.models < 1:
        raise UsageError("--runtimes, --entries and --models must be at least 1")
    pools = dict(defaults)
    for text in args.pool:
        if unrepresentable(text):  # an argument that is not UTF-8 (issue 28: a traceback)
            raise UsageError(f"--pool {quote(text)}: {unrepresentable(text)}")
        name, _, values = text.partition("=")
        kind = finder.POOL_TYPES.get(name)
        if kind is None or not _:
            raise UsageError(f"--pool {shown(text)}: write NAME=V1,V2,... with NAME one of {', '.join(finder.POOL_TYPES)}")
        items = [v for v in values.split(",") if v != ""]
        try:
            pools[name] = tuple(kind(v) for v in items)
        except ValueError:
            raise UsageError(f"--pool {shown(text)}: {name} takes integers") from None
        if kind is int and any(not -2**31 <= v < 2**31 for v in pools[name]):
            # clingo's integers are 32-bit (issue 28: an OverflowError, exit 3)
            raise UsageError(f"--pool {shown(text)}: {name} must lie within -2147483648..2147483647")
        if len(set(pools[name])) != len(pools[name]):
            raise UsageError(f"--pool {text}: a value is listed twice")
    for text in pools["versions"]:
        if parse_version(text) is None:
            raise UsageError(f"--pool versions: {text!r} is not a version (V1)")
    if any(abs(w) > WEIGHT_LIMIT for w in pools["weights"]):
        # The pool's weight products are ranked once for every profile; below
        # this bound none reaches code-v0.1.5's int64 wrap (D-50), so they agree.
        raise UsageError(f"--pool weights: values beyond ±{WEIGHT_LIMIT} are not searched (docs/find.md)")
    for name in ("runtime_names", "formats", "frameworks"):
        if not pools[name]:
            raise UsageError(f"--pool {name}: needs at least one value")
    given = {text.partition("=")[0] for text in args.pool}
    if len(pools["runtime_names"]) < args.runtimes and "runtime_names" in given:
        # Your names are what is searched: the default pool grows to the bound, yours does not (D-91).
        raise UsageError(f"--runtimes {args.runtimes}: a scope's runtimes have distinct names, and --pool runtime_names "
                         f"gives {len(pools['runtime_names'])}: give at least {args.runtimes} or leave the pool out")
    return finder.Bounds(args.runtimes, args.entries, pools, args.isvc, args.modes, args.accelerators, args.models)


# --- search and verification ---------------------------------------------------


@dataclass
class Found:
    question: Question
    bounds: finder.Bounds
    witness: finder.Witness | None
    answers: dict[str, dict] = field(default_factory=dict)  # explain's report, per side
    selections: dict[str, dict] = field(default_factory=dict)  # select's answer (cases.py), per side (--isvc)
    manifests: dict[str, str] = field(default_factory=dict)  # per side

    @property
    def query(self) -> dict:
        return query_of(self.bounds)


def run_question(q: Question, bounds: finder.Bounds, threads: int = 1) -> Found:
    world_list = [finder.World(s.profile, s.encoding, "add_disabled" if s.extra else "raise_winner" if s.raise_winner else None)
                  for s in q.sides]
    files = q.files + ([finder.find_dir() / "select.lp"] if bounds.isvc and q.compares else [])
    witness = finder.search(bounds, world_list, files, q.facts, q.where, extra_runtime=any(s.extra for s in q.sides),
                            explain=q.explain, threads=threads)
    found = Found(q, bounds, witness)
    if witness is not None:
        verify(found)
    return found


def side_documents(found: Found, side: Side) -> list[dict]:
    documents = [dict(d) for d in found.witness.documents]
    if side.extra:
        documents += found.witness.extra
    if side.raise_winner:
        before = found.answers["before"].get("selected")
        if before:
            documents = raised(documents, (before["kind"], before["name"]))
    return documents


def raised(documents: list[dict], winner: tuple[str, str]) -> list[dict]:
    """The documents with every entry of the runtime `winner` (kind, name) at
    its priority + 1 (absent read as 1): raise_winner's second cluster."""
    def up(document: dict) -> dict:
        entries = [{**e, "priority": e.get("priority", 1) + 1} for e in document["spec"]["supportedModelFormats"]]
        return {**document, "spec": {**document["spec"], "supportedModelFormats": entries}}

    return [up(d) if (d["kind"], d["metadata"]["name"]) == winner else d for d in documents]


def explain_answer(manifests: str, side: Side, query: dict) -> dict:
    """The side's answer as the user gets it: `explain -o json` of the
    manifests, through the ordinary loader and CLI, under the side's profile
    and encoding."""
    argv = ["explain", *cases.target_flags(query), "--profile", side.profile.name, "-o", "json"]
    with programs.using_encoding(side.encoding):
        out = cases.run_cli(argv, manifests.encode())
    if out.code == 3 and "internal error" in out.stderr:
        raise InternalError(f"find: explain failed on the witness under {side.name}: {out.stderr.strip()}")
    document = json.loads(out.stdout) if out.stdout.strip() else None
    if isinstance(document, dict):
        return document
    errors = [line[len("error: "):] for line in out.stderr.splitlines() if line.startswith("error: ")]
    return {"error": errors[-1] if errors else f"exit {out.code}"}


def verify(found: Found) -> None:
    """Write, read back, explain under each side, and check the condition again."""
    q = found.question
    for side in q.sides:  # "before" first: raise_winner reads its answer
        documents = side_documents(found, side)
        manifests = cases.dump_manifests(documents)
        # Valid input for the side (I4), strictly: only a field its OME version
        # does not have is a warning (v1.2.2's and v0.1.5's spec.deploymentMode, D3).
        lacks = "deployment_mode" not in finder.reads(side.profile) and any(
            "deploymentMode" in d["spec"] for d in documents if d["kind"] == "InferenceService")
        load(["-"], stdin=io.BytesIO(manifests.encode()), strict=not lacks, profile=side.profile)
        found.manifests[side.name] = manifests
        found.answers[side.name] = explain_answer(manifests, side, found.query)
        if found.bounds.isvc:
            with programs.using_encoding(side.encoding):
                found.selections[side.name] = cases.answer("select", manifests.encode(), found.query, side.profile.name)
    if q.check is not None and not q.check(found):
        raise InternalError(f"find: the witness does not satisfy the condition when explained: {_summary(found)}")
    if q.where is not None and not _where_holds(found, q.sides[0]):
        raise InternalError(f"find: the witness does not satisfy {q.where} when explained: {_summary(found)}")


def _where_holds(found: Found, side: Side) -> bool:
    """--where re-checked: the ordinary batch explain program on the facts of
    the loaded witness, with the user's constraints, has its answer set."""
    from ome_asp.input.objects import Query

    cluster = load(["-"], stdin=io.BytesIO(found.manifests[side.name].encode()), profile=side.profile)
    with programs.using_encoding(side.encoding):
        return ask.satisfiable(cluster, [Query(**found.query)], finder.world_variant(found.bounds, explain=True),
                               found.question.where)


def _summary(found: Found) -> str:
    return "; ".join(f"{name}: {json.dumps(view(answer, 'selected'))}" for name, answer in found.answers.items())


# --- output --------------------------------------------------------------------


def describe_selection(selection: dict) -> str:
    """What select answers (cases.py's reduced answer), in one line."""
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
    rows = _yes_rows(answer)
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


def clusters(q: Question, bounds: finder.Bounds) -> int:
    """How many clusters the search ranges over (with add_disabled, with their added runtime)."""
    return space.clusters(bounds, {s.profile.model_rule for s in q.sides}, any(s.extra for s in q.sides))


def bounds_text(bounds: finder.Bounds) -> str:
    b = bounds.to_json()
    pools = " ".join(f"{k}={','.join(map(str, v)) or '-'}" for k, v in b["pools"].items())
    models = b["models"]
    objects = f"{b['runtimesPerScope']} runtimes per scope, {b['entriesPerRuntime']} entries per runtime, {models} model{'s' * (models > 1)}"
    objects += ", 1 InferenceService" if bounds.isvc else ""
    objects += "".join(f", {what}" for what, on in (("deployment modes", bounds.modes), ("accelerator classes", bounds.accelerators))
                       if on)
    return f"{objects}; pools: {pools}"


def render_yaml(found: Found) -> str:
    q = found.question
    lines = [f"# ome-asp find {condition_text(q)}", f"# bounds: {bounds_text(found.bounds)}",
             f"# clusters within the bounds: {space.describe(clusters(q, found.bounds))}"]
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
        lines += [f"#   {line}" for line in cases.dump_manifests(found.witness.extra).splitlines()]
    if any(s.raise_winner for s in q.sides):
        lines.append("# after: the same cluster with every entry of the selected runtime at its priority + 1")
    return "\n".join(lines) + "\n" + cases.dump_manifests(found.witness.documents)


def to_document(found: Found) -> dict:
    return {
        "apiVersion": report.API_VERSION,
        "kind": "FindReport",
        "condition": found.question.description,
        "bounds": {**found.bounds.to_json(), **space.to_json(clusters(found.question, found.bounds))},
        "found": found.witness is not None,
        "query": found.query,
        "cost": dict(found.witness.cost) if found.witness else None,
        "manifests": found.witness.documents if found.witness else None,
        "answers": found.answers if found.witness else None,
        **({"selections": found.selections if found.witness else None} if found.bounds.isvc else {}),
    }


def write_cases(found: Found, directory: Path) -> None:
    """The witness as one conformance case per side (the `check` format)."""
    query = found.query
    commands = ["explain", "select"] if found.bounds.isvc else ["explain"]
    for side in found.question.sides:
        manifests = found.manifests[side.name]
        with programs.using_encoding(side.encoding):
            answers = {command: cases.answer(command, manifests.encode(), query, side.profile.name) for command in commands}
        documents = side_documents(found, side)
        spec = {
            "description": f"find {condition_text(found.question)}: side {side.name}",
            "rules": exercised_rules(documents, query, answers) or ["O5"],
            "profile": side.profile.name,
            "query": query,
            "check": commands,
        }
        cases.write(directory / re.sub(r"[^A-Za-z0-9._-]+", "_", side.name).strip("_"), spec, documents, answers)


# --- the command line ------------------------------------------------------------


def add_parser(commands) -> None:
    parser = commands.add_parser(
        "find",
        help="search small clusters for one where two specifications disagree or a property breaks",
        description="Find the smallest cluster, within the bounds, on which a condition holds (docs/find.md); "
        "every witness is verified with the ordinary loader and explain.",
    )
    parser.add_argument("--differ", metavar="A,B", help="two profiles that answer differently")
    parser.add_argument("--differ-encoding", metavar="DIR", help="an edited copy of encoding/ that answers differently")
    parser.add_argument("--on", choices=LEVELS, default=None,
                        help="what must differ: the selected runtime (default), the order, the rows, the reasons")
    parser.add_argument("--property", metavar="NAME", help=f"a violation of a catalogued property: {', '.join(PROPERTIES)}")
    parser.add_argument("--where", metavar="FILE.lp", help="your own condition: constraints over the shown atoms of a world")
    parser.add_argument("--encoding", metavar="DIR",
                        help="the encoding the worlds run (default: ome-asp's encoding/); --differ-encoding compares it with DIR")
    add_bounds_flags(parser, f"{finder.Bounds.runtimes}; 1 for adding-disabled-runtime-changes-nothing")
    parser.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml")
    parser.add_argument("--out", metavar="DIR", help="also write the witness as a conformance case per side")
    batch.add_jobs_flag(parser, "decide whether a witness exists", "threads")
    add_profile_flags(parser)
    parser.set_defaults(run=run)


def add_bounds_flags(parser, runtimes_default: str) -> None:
    """The bounds and pools flags, find's and `diff --exhaustive`'s (bounds_of reads them)."""
    parser.add_argument("--runtimes", type=int, default=None, metavar="N",
                        help=f"runtimes per scope, ServingRuntimes and ClusterServingRuntimes (default: {runtimes_default})")
    parser.add_argument("--entries", type=int, default=finder.Bounds.entries, metavar="N",
                        help="supportedModelFormats entries per runtime (default: %(default)s)")
    parser.add_argument("--models", type=int, default=finder.Bounds.models, metavar="N",
                        help="models: the queried BaseModel or ClusterBaseModel m and up to N-1 others, of its name "
                        "in the other scope (M1) or another (default: %(default)s)")
    parser.add_argument("--isvc", action="store_true",
                        help="an InferenceService: the worlds answer explain and select --isvc for it (X, M, O9)")
    parser.add_argument("--modes", action="store_true", help="deployment modes on runtimes and the InferenceService (D, Q4)")
    parser.add_argument("--accelerators", action="store_true",
                        help="an AcceleratorClass, runtimes' acceleratorClasses and the InferenceService's request (A, W3)")
    parser.add_argument("--pool", action="append", default=[], metavar="NAME=V1,V2",
                        help="the values a field may take (repeatable; docs/find.md lists the pools)")


def _searchable(q: Question, bounds: finder.Bounds) -> None:
    """Pools whose values a side's loader rejects (a witness is valid input for
    every side, D-70), or whose witnesses the search could not answer as the
    sides do."""
    for side in q.sides:
        grammar = is_go_size if side.profile.size_syntax == "go" else is_size
        for text in bounds.pools["sizes"]:
            if not grammar(text):
                raise UsageError(f"--pool sizes: {text!r} is not a size {side.profile.name} reads (Z1)")
        if side.profile.schema_validation and any(p < 1 for p in bounds.pools["priorities"]):
            raise UsageError(f"--pool priorities: {side.profile.name}'s schema requires a priority of at least 1 (I4)")
        gap = finder.go_order_gap(side.profile, bounds.pools["sizes"])
        if gap is not None:
            size, near, far = gap
            raise UsageError(f"--pool sizes: for a model of {size}, distances {near!r} and {far!r} differ by less than one "
                             f"parameter, where {side.profile.name}'s Go order (O3/O4) is not in find's worlds (docs/find.md)")


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    q, bounds = question(args), bounds_of(args)
    for warning in where_warnings(q.where, q.sides[0].encoding):
        print(f"warning: {warning}", file=stderr)
    _searchable(q, bounds)
    found = run_question(q, bounds, args.jobs or batch.default_jobs())
    if args.output == "json":
        report.dump(to_document(found), "json", stdout)
    else:
        stdout.write(render_yaml(found))
    if found.witness is None:
        return Exit.NEGATIVE
    if args.out is not None:
        write_cases(found, Path(args.out))
    return Exit.OK
