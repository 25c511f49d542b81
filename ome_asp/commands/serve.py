"""`ome-asp serve --stdio`: a long-lived oracle answering JSON lines.

Each input line is one request, each output line its answer, in order
(protocol in docs/oracle.md):

    {"id": 7, "namespace": "llama-demo", "model": "llama-3-2-3b-instruct"}
    {"id": 8, "namespace": "llama-demo", "isvc": "llama-chat"}
    {"id": 9, "namespace": "ns", "model": "m", "manifests": [{...}, ...]}
    {"id": 10, "profile": "code-v0.1.5", "namespace": "ns", "model": "m"}
    -> {"id": 7, "report": {...RuntimeExplainReport...}}
    -> {"id": 9, "error": "clusterbasemodels.ome.io \"m\" not found"}

Requests without `manifests` ask about the cluster loaded at start (-f). The
first request in a namespace evaluates every model and InferenceService of
that namespace in one grounding (batch keys, as `explain --all-models`), so
later requests there are answered from memory; no clingo state outlives a
batch, and at most `CACHED_NAMESPACES` namespaces are kept. A request with
`manifests` is a case of its own, solved as one query; its manifests are
read as the values they are (messages name JSON paths, `manifests[3]`). A request's `profile`
(default: serve's --profile) chooses the OME version; the cluster is read
under each profile asked for, each with its own cache. An outcome without a
table (docs/profiles.md section 0) is a report with `outcome`, `detail` and no rows.

A request's `command` is `explain` (the default), `select` or `admit`; its
`report` is what `ome-asp <command> ... -o json` prints; `ping` answers
serve's status and protocol version (PROTOCOL), grounding nothing. Lines already
waiting on stdin are read ahead (at most BATCH_LINES lines, BATCH_BYTES
bytes) and answered as one batch: the requests with their own manifests,
every select and every admit are grounded together as worlds (one case per
world, ome_asp/solver/worlds.py; each report built by ome_asp/analysis/oracle.py,
as check builds the corpus's); the answers are written in request order,
each flushed. With `-j N` (default: the cores serve may use) the requests
with their own manifests are answered in worker processes, as many as the
batch and the free cores make worth it, each replaced when it has grown
(analysis/batch.py's Workers and Cores, D-320); the answers are in the same
order.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import math
import os
import re
import stat
from collections import OrderedDict
from typing import BinaryIO, Iterator, TextIO

from ome_asp import __version__, records
from ome_asp.analysis import batch
from ome_asp.analysis.oracle import answer_worlds, error_answer, explain_report, selection_report
from ome_asp.commands.options import add_jobs_flag, add_max_input_size_flag, add_profile_flags, profile_of
from ome_asp.errors import Exit, InternalError, OmeAspError, UsageError
from ome_asp.input import profiles
from ome_asp.input.documents import MESSAGE_VALUE_CHARS
from ome_asp.input.limits import MAX_INPUT_BYTES, format_byte_size
from ome_asp.input.loader import load, load_documents, namespace_warning
from ome_asp.input.objects import Cluster, Query
from ome_asp.render import reasons, report
from ome_asp.solver import ask, worlds
from ome_asp.solver.answer import Answer, QueryAnswer
from ome_asp.solver.programs import Variant
from ome_asp.solver.sight import Sight
from ome_asp.timing import gc_paused

CACHED_NAMESPACES = 64
CACHED_SELECTIONS = 1024
BATCH_LINES = 1000  # read-ahead bounds: one batch answers at most this many lines,
BATCH_BYTES = 16 * 2**20  # of at most about this many bytes (one longer line is one batch)
SHARE_LINES = 16  # with -j, each worker answers at least this many of a batch's lines (a grounding costs ~10 ms)
# stdin's pipe is widened to this (Linux's default holds 64 KiB, about 18
# requests with their manifests): a client writing ahead then fills batches
# of up to this many bytes, and a batch's fixed cost (about 15 ms of CPU:
# grounding the encoding's ~370 statements, with no world yet) is shared by
# ~280 such requests instead of ~18 (issue 26, D-147).
PIPE_BYTES = 2**20
# The keys a request of each command may have (anything else is an error answer).
_TARGET_KEYS = frozenset({"id", "command", "profile", "manifests", "namespace", "model", "isvc"})
REQUEST_KEYS = {"explain": _TARGET_KEYS, "select": _TARGET_KEYS, "admit": frozenset({"id", "command", "profile", "manifests"}),
                "ping": frozenset({"id", "command"})}
# The protocol of requests and answers (docs/oracle.md); a change a client
# must know about (a key, a meaning) raises it. `ping` answers it.
PROTOCOL = 1


class Oracle:
    """Answers queries about one cluster, a namespace's worth at a time, each
    grounded on what its queries read (solver/sight.py, D-120, D-149)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._sight = Sight(cluster)
        # Every ServingRuntime's admission, once (a namespace's grounding
        # admits its own and the cluster-scoped ones): with each grounding's
        # denials, the whole cluster's (I9). None: no ServingRuntime.
        self._admitted = batch.unseen_denials(self._sight, [[]])
        self._answers: OrderedDict[str, dict[Query, QueryAnswer]] = OrderedDict()
        # A name no model (or InferenceService) of the cluster has: the query
        # of a name the cluster lacks is answered as this one's (D-321).
        taken = {m.name for m in cluster.models} | {i.name for i in cluster.inference_services}
        self._absent = next(name for name in (f"-{n}" for n in itertools.count()) if name not in taken)
        # The namespaces some object is in; every other namespace reads the
        # cluster-scoped objects alone and is answered as this one (D-321).
        self._namespaced = {o.namespace for o in (*cluster.runtimes, *cluster.models, *cluster.inference_services)} - {None}
        self._empty = next(name for name in (f"-{n}" for n in itertools.count()) if name not in self._namespaced)
        self._reach: dict[str, frozenset[Query]] = {}  # the queries that can succeed in a namespace
        self._selections: OrderedDict[Query, dict] = OrderedDict()  # select's answers about what the cluster has
        self._selected: OrderedDict[str, None] = OrderedDict()  # the namespaces select has grounded
        self._admission: dict | None = None  # admit's answer, which no request changes
        # report.denials of the cluster: every solve gives the same (I9 depends on no query)
        self.denied: list = []

    def answers(self, queries: list[Query]) -> list[tuple[QueryAnswer, bool]]:
        """Each query's answer, and whether it is a stand-in's. The queries
        of a namespace not answered yet are grounded together on what they
        read (`_solve`); from the namespace's second grounding on, with every
        other query of it, so that a client asking a namespace's queries one
        at a time pays for two groundings, and one asking once per namespace
        for its own query only (D-149). A namespace no object is in is
        answered as the stand-in namespace `_empty`, and a name the namespace
        lacks as the stand-in name `_absent` of its kind, once per namespace:
        lookup.lp compares names only for equality, and E4's error
        (`reasons.query_error`) is rendered with the name asked for, so no
        name a client sends is grounded or kept (D-321; issue 38 item 5:
        1.6-1.9 KB per new name, clingo's symbols)."""
        mapped = [self._stand_in(query) for query in queries]
        todo = [query for query, _ in dict.fromkeys(mapped) if query not in self._answers.get(query.namespace, {})]
        for namespace, group in itertools.groupby(sorted(todo, key=lambda q: q.namespace), key=lambda q: q.namespace):
            asked = list(group)
            known = self._answers.get(namespace)
            if known is not None:  # its second grounding: the rest of it too
                asked += [q for q in namespace_queries(self.cluster, namespace) if q not in known and q not in asked]
            result = self._solve(asked)
            fresh = dict(zip(asked, result.queries.values()))
            for query, answer in fresh.items():
                if query.model == self._absent or query.isvc == self._absent:
                    if answer.error is None or answer.error.name not in reasons.NOT_FOUND:
                        raise InternalError(f"the name {self._absent!r}, which the cluster lacks, is answered {answer.error}, "
                                            "not E4's not found")
            self._answers[namespace] = {**(known or {}), **fresh}
            self._answers.move_to_end(namespace)
            if len(self._answers) > CACHED_NAMESPACES:
                self._answers.popitem(last=False)
        return [(self._answers[query.namespace][query], stand_in) for query, stand_in in mapped]

    def _stand_in(self, query: Query) -> tuple[Query, bool]:
        """The query answered for `query` (D-321), and whether its name is a stand-in."""
        if query.namespace not in self._namespaced:
            query = records.replace(query, namespace=self._empty)
        if query.namespace not in self._reach:
            self._reach[query.namespace] = frozenset(namespace_queries(self.cluster, query.namespace))
            if len(self._reach) > CACHED_NAMESPACES:
                del self._reach[next(iter(self._reach))]
        if query in self._reach[query.namespace]:
            return query, False
        return Query(query.namespace, **{"model" if query.model is not None else "isvc": self._absent}), True

    def selections(self, queries: list[Query]) -> list[dict]:
        """select's answer ({"report": ...} or the error) to each query: the
        queries of a namespace not answered yet grounded together on what
        they read (Sight.part, as `_solve`), from the namespace's second
        grounding on with every other query of it, as `answers` does; those
        about what the cluster has are kept (CACHED_SELECTIONS at most)."""
        profile = self.cluster.profile
        fresh: dict[Query, dict] = {}
        todo = [q for q in dict.fromkeys(queries) if q not in self._selections]
        for namespace, group in itertools.groupby(sorted(todo, key=lambda q: q.namespace), key=lambda q: q.namespace):
            asked = list(group)
            if namespace in self._selected:  # its second grounding: the rest of it too
                asked += [q for q in namespace_queries(self.cluster, namespace) if q not in self._selections and q not in asked]
            self._selected[namespace] = None
            if len(self._selected) > CACHED_NAMESPACES:
                self._selected.popitem(last=False)
            result = ask.ask(self._sight.part(asked), asked, Variant.SELECT).answer
            notes = report.notes_json([], batch.denials(self._admitted, result))
            for n, query in enumerate(asked, 1):
                try:
                    fresh[query] = selection_report(query, result.queries[n], profile, notes, self.cluster)
                except OmeAspError as error:
                    fresh[query] = error_answer(error)
                if not self._stand_in(query)[1]:  # a name the cluster lacks is not kept (issue 38 item 5)
                    self._selections[query] = fresh[query]
                    if len(self._selections) > CACHED_SELECTIONS:
                        self._selections.popitem(last=False)
        answers = []
        for query in queries:
            if query in fresh:
                answers.append(fresh[query])
            else:
                self._selections.move_to_end(query)
                answers.append(self._selections[query])
        return answers

    def admission(self) -> dict:
        """admit's answer about the cluster, once."""
        if self._admission is None:
            self._admission = answer_worlds([("admit", self.cluster, None, self.cluster.profile)])[0]
        return self._admission

    def notes(self, namespace: str) -> dict:
        """The report's `warnings` and `denied` (issue 16), after an answer in `namespace`."""
        return report.notes_json(input_warnings(self.cluster, namespace), self.denied)

    def _solve(self, queries: list[Query]) -> Answer:
        """`queries` (of one namespace) grounded on their part of the cluster,
        as explain --all-models grounds a chunk (D-120): a new namespace costs
        its own runtimes and the cluster-scoped ones, not the whole cluster."""
        result = ask.ask(self._sight.part(queries), queries, Variant.EXPLAIN).answer
        self.denied = batch.denials(self._admitted, result)
        return result


def namespace_queries(cluster: Cluster, namespace: str) -> list[Query]:
    """Every query that can succeed in `namespace`: its BaseModels, every
    ClusterBaseModel, and its InferenceServices."""
    models = sorted({m.name for m in cluster.models if m.namespace in (None, namespace)})
    isvcs = sorted(i.name for i in cluster.inference_services if i.namespace == namespace)
    return [Query(namespace, model=m) for m in models] + [Query(namespace, isvc=i) for i in isvcs]


def input_warnings(cluster: Cluster, namespace: str) -> list[str]:
    """The warnings a command line run in `namespace` prints before its answer
    (commands.options.load_cluster): the cluster's, and an empty namespace's."""
    typo = namespace_warning(cluster, namespace)
    return cluster.warnings if typo is None else [*cluster.warnings, typo]


def respond(request: dict, oracle, default: profiles.Profile = profiles.V1_3) -> dict:
    """The answer to one request (a dict), never raising for the user's mistakes.
    `oracle(profile)` is the Oracle of the loaded cluster under a profile, or None."""
    return respond_all([request], oracle, default)[0]


def respond_all(requests: list[dict | str], oracle, default: profiles.Profile = profiles.V1_3) -> list[dict]:
    """The answers to a batch of requests, in order (a str is a line that is
    not a request: its error answer). Explain requests about the loaded
    cluster are answered by its Oracle; every other request is a world of one
    grounding per command (explain, select, admit)."""
    responses: list[dict] = []
    pending: list[int] = []  # where the answers of `cases` go
    cases: list[tuple[str, Cluster, Query | None, profiles.Profile]] = []
    warnings: list[list[str]] = []  # each case's input warnings (its report's, issue 16)
    explains: dict[str, list[tuple[int, Query]]] = {}  # explain requests about each profile's loaded cluster
    selects: dict[str, list[tuple[int, Query]]] = {}  # select requests about it
    for request in requests:
        if isinstance(request, str):
            responses.append({"id": None, "error": request})
            continue
        response = {"id": request.get("id")}
        responses.append(response)
        try:
            command = _command(request)
            if command == "ping":
                response.update(pong(default, oracle is not None))
                continue
            profile = _profile(request, default)
            query = None if command == "admit" else _query(request)
            if "manifests" in request:
                cluster = _case_cluster(request["manifests"], profile)
            elif oracle is None:
                raise OmeAspError("no cluster loaded: start serve with -f, or send manifests with the request")
            elif command in ("explain", "select"):
                (explains if command == "explain" else selects).setdefault(profile.name, []).append((len(responses) - 1, query))
                continue
            else:
                response.update(_warned(oracle(profile).admission(), oracle(profile).cluster.warnings))
                continue
            cases.append((command, cluster, query, profile))
            pending.append(len(responses) - 1)
            warnings.append(cluster.warnings if query is None else input_warnings(cluster, query.namespace))
        except OmeAspError as error:
            response.update(error_answer(error))
    for i, case_warnings, answer in zip(pending, warnings, answer_worlds(cases)):
        responses[i].update(_warned(answer, case_warnings))
    for name, asked in explains.items():
        profile, loaded = profiles.PROFILES[name], oracle(profiles.PROFILES[name])
        for (i, query), (answer, stand_in) in zip(asked, loaded.answers([query for _, query in asked])):
            try:
                responses[i].update(explain_report(query, answer, profile, cluster=loaded.cluster,
                                                   notes=loaded.notes(query.namespace), stand_in=stand_in))
            except OmeAspError as error:
                responses[i].update(error_answer(error))
    for name, asked in selects.items():
        loaded = oracle(profiles.PROFILES[name])
        for (i, query), answer in zip(asked, loaded.selections([query for _, query in asked])):
            responses[i].update(_warned(answer, input_warnings(loaded.cluster, query.namespace)))
    return responses


def pong(default: profiles.Profile, loaded: bool) -> dict:
    """A ping's answer: serve reads requests (and has read -f's cluster), and
    the protocol and version it speaks (docs/oracle.md, "Readiness")."""
    return {"report": {"apiVersion": report.API_VERSION, "kind": "ServeStatus", "protocol": PROTOCOL,
                       "version": __version__, "profile": default.name, "cluster": loaded}}


def _warned(answer: dict, warnings: list[str]) -> dict:
    """An answer with the input's warnings before its report's own (answer_worlds
    and the Oracle know facts, not the manifests' warnings); a new dict."""
    if not warnings or "report" not in answer:
        return answer
    key = "inputWarnings" if answer["report"]["kind"] == "RuntimeSelection" else "warnings"
    if key not in answer["report"]:
        return answer
    return {**answer, "report": {**answer["report"], key: [*warnings, *answer["report"][key]]}}


def _command(request: dict) -> str:
    command = request.get("command", "explain")
    if not isinstance(command, str) or command not in REQUEST_KEYS:
        raise OmeAspError(f'"command" must be one of {", ".join(REQUEST_KEYS)}')
    unknown = sorted(str(key) for key in request.keys() - REQUEST_KEYS[command])
    if unknown:
        raise OmeAspError(f'a {command} request has no key {", ".join(map(json.dumps, unknown))}')
    return command


def _profile(request: dict, default: profiles.Profile) -> profiles.Profile:
    name = request.get("profile", default.name)
    if not isinstance(name, str) or name not in profiles.PROFILES:
        raise OmeAspError(f'"profile" must be one of {", ".join(profiles.PROFILES)}')
    return profiles.PROFILES[name]


def _query(request: dict) -> Query:
    namespace = request.get("namespace", "default")
    model, isvc = request.get("model"), request.get("isvc")
    if not isinstance(namespace, str) or (model is None) == (isvc is None):
        raise OmeAspError('a request needs "namespace" (a string, default "default") and exactly one of "model" or "isvc"')
    if not isinstance(model if model is not None else isvc, str):
        raise OmeAspError('"model" and "isvc" are names (strings)')
    return Query(namespace, model=model, isvc=isvc)


def _case_cluster(manifests, profile: profiles.Profile) -> Cluster:
    """The request's manifests read as they are (never written as YAML):
    `explain` of their YAML text reads the same objects and says the same,
    each message placed at a JSON path (`manifests[3]: ...`) instead of a line."""
    if not isinstance(manifests, list):
        raise OmeAspError('"manifests" must be a list of objects')
    return load_documents(manifests, profile=profile)


def serve(
    loaded, stdin: BinaryIO, stdout: TextIO, default: profiles.Profile = profiles.V1_3, max_bytes: int = MAX_INPUT_BYTES,
    jobs: int = 1,
) -> int:
    """Answer every line of `stdin` on `stdout` until end of input. `loaded(profile)`
    reads the cluster of -f under a profile (None without -f). No line stops
    serving: a bad one gets an error answer (issue 18). With `jobs` > 1, the
    requests of a batch with their own manifests are cut into shares that
    worker processes answer (forked when first needed, so they inherit the
    cluster and the compiled encoding), at most one per core free and per
    SHARE_LINES of them; the answers are written in request order all the same."""
    oracles: dict[str, Oracle] = {}

    def oracle_for(profile: profiles.Profile) -> Oracle:
        if profile.name not in oracles:
            oracles[profile.name] = Oracle(loaded(profile))
        return oracles[profile.name]

    oracle = None if loaded is None else oracle_for

    def answer(lines: list[tuple[int, bytes | None]]) -> list[str]:
        """The answer lines of some (line number, line) of the input."""
        requests: list[dict | str] = []
        for number, line in lines:
            try:
                request = parse_request(number, line, max_bytes)
            except OmeAspError as error:
                request = str(error)
            requests.append(request)
        with gc_paused():
            return [answer_line(response) for response in respond_all(requests, oracle, default)]

    most = min(jobs, batch.default_jobs())  # -j N: never more processes than cores (issue 38)
    cores = batch.Cores(most) if most > 1 else None
    with contextlib.ExitStack() as stack:
        workers = None
        for lines in read_ahead(stdin, max_line=max_bytes):
            cases = [item for item in lines if _brings_manifests(item[1])]
            if cores is None or not cases:
                answers = answer(lines)
            else:
                if workers is None:
                    worlds.compile_all()  # once, before the first fork: every worker inherits it
                    workers = batch.Workers(answer, cores)
                    stack.callback(workers.close)
                own = [item for item in lines if not _brings_manifests(item[1])]
                shares = _shares(cases, max(1, min(cores.free(), len(cases) // SHARE_LINES)))
                results, mine = workers.map(shares, functools.partial(answer, own))
                by_line = dict(zip([n for n, _ in own], mine))
                by_line.update((n, text) for share, texts in zip(shares, results) for (n, _), text in zip(share, texts))
                answers = [by_line[n] for n, _ in lines]
            for line in answers:
                stdout.write(line)
                stdout.flush()
    return Exit.OK


def _brings_manifests(line: bytes | None) -> bool:
    """Whether a line looks like a request with its own manifests: such a
    request is a case of its own (a world), which a worker answers; the others
    (about -f's cluster, whose answers this process caches, and bad lines)
    are answered here. A guess from the bytes, before parsing: a line guessed
    wrong is answered all the same, only elsewhere."""
    return line is not None and b'"manifests"' in line


def _shares(lines: list[tuple[int, bytes | None]], count: int) -> list[list[tuple[int, bytes | None]]]:
    """`lines` in order, cut into at most `count` runs of about equal bytes
    (a request's bytes are about its manifests, about its cost)."""
    total = sum(len(line or b"") for _, line in lines)
    shares: list[list[tuple[int, bytes | None]]] = [[]]
    size = 0
    for item in lines:
        if shares[-1] and len(shares) < count and size * count >= total * len(shares):
            shares.append([])
        shares[-1].append(item)
        size += len(item[1] or b"")
    return shares


def read_ahead(
    stdin: BinaryIO, max_lines: int = BATCH_LINES, max_bytes: int = BATCH_BYTES, max_line: int = MAX_INPUT_BYTES
) -> Iterator[list[tuple[int, bytes | None]]]:
    """Batches of (line number, line) of the lines: each time, every
    complete line already buffered, within the bounds. Waits for input only
    when no complete line is buffered, so a client sending one line at a time
    gets each answer before it sends the next. A line longer than `max_line`
    is None: its bytes are dropped as they arrive, so no line takes more
    memory than the limit (`serve < /dev/zero`, issue 18)."""
    number = 0
    tail: list[bytes] = []  # the line begun but not ended
    tail_size = 0
    overlong = False  # the line begun is longer than max_line
    while True:
        chunk = stdin.read1(max_bytes)  # what has arrived, waiting only when nothing has
        lines: list[bytes | None]
        if not chunk:
            # the end of the last line; nothing after its newline is no line
            lines = [None] if overlong else [b"".join(tail)] if tail_size else []
        else:
            *lines, last = chunk.split(b"\n")
            if lines:
                ended = overlong or tail_size + len(lines[0]) > max_line
                lines[0] = None if ended else b"".join(tail) + lines[0]
                tail, tail_size, overlong = [], 0, False
            if overlong or tail_size + len(last) > max_line:
                tail, tail_size, overlong = [], 0, True
            else:
                tail.append(last)
                tail_size += len(last)
        batch: list[tuple[int, bytes | None]] = []
        size = 0
        for line in lines:
            number += 1
            if line is not None and len(line) > max_line:
                line = None
            if batch and (len(batch) == max_lines or size + len(line or b"") > max_bytes):
                yield batch
                batch, size = [], 0
            batch.append((number, line))
            size += len(line or b"")
        if batch:
            yield batch
        if not chunk:
            return


def widen_pipe(stream) -> None:
    """Make `stream`'s pipe hold PIPE_BYTES, where it is a pipe and Linux
    allows it (fs.pipe-max-size, 1 MiB by default); else leave it: batches
    are then as large as the pipe lets them be, answers the same."""
    try:
        descriptor = stream.fileno()
        if stat.S_ISFIFO(os.fstat(descriptor).st_mode):
            import fcntl  # POSIX only; F_SETPIPE_SZ is Linux's

            fcntl.fcntl(descriptor, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (AttributeError, ImportError, OSError, ValueError):  # no file, no fcntl, above the limit
        pass


def parse_request(number: int, line: bytes | None, max_bytes: int) -> dict:
    """The request of input line `number`; an OmeAspError naming the line
    when it is not a JSON object in UTF-8 within
    the limit. JSON's own extensions NaN, Infinity and numbers beyond a double
    are refused: they could not be echoed as JSON."""
    if line is None:
        raise OmeAspError(
            f"line {number}: the request is larger than {format_byte_size(max_bytes)}; raise the limit with --max-input-size"
        )
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise OmeAspError(f"line {number}: not valid UTF-8: byte 0x{line[error.start]:02x} at byte {error.start + 1}") from None
    if not text.strip():  # a line like any other: answered, as docs/oracle.md says (issue 28)
        raise OmeAspError(f"line {number}: not a JSON request: a blank line")
    try:
        request = json.loads(text, parse_constant=_not_json, parse_float=_finite)
    except RecursionError:
        raise OmeAspError(f"line {number}: not a JSON request: nested too deeply") from None
    except ValueError as error:
        raise OmeAspError(f"line {number}: not a JSON request: {error}") from None
    if not isinstance(request, dict):
        raise OmeAspError(f"line {number}: not a JSON request: a request is a JSON object")
    return request


def _not_json(constant: str):
    raise ValueError(f"{constant} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:MESSAGE_VALUE_CHARS]} is out of range")
    return value


# JSON leaves these raw in strings, but line readers end a line at them; a
# lone surrogate (from a "\ud800" escape in a request) has no UTF-8 form.
_BREAKS_A_LINE = re.compile("[\x85\u2028\u2029\ud800-\udfff]")


def answer_line(response: dict) -> str:
    """One answer as one line of UTF-8 JSON."""
    text = json.dumps(response, ensure_ascii=False)
    return _BREAKS_A_LINE.sub(lambda m: f"\\u{ord(m[0]):04x}", text) + "\n"


def add_parser(commands) -> None:
    serve = commands.add_parser(
        "serve",
        help="answer explain queries as JSON lines, keeping the encoding and the cluster loaded",
        description="Read one JSON request per line on stdin, write one JSON answer per line (docs/oracle.md).",
    )
    serve.add_argument("--stdio", action="store_true", required=True, help="talk JSON lines on stdin/stdout (the only transport)")
    serve.add_argument(
        "-f", "--filename", action="append", default=[], metavar="PATH",
        help="the cluster to answer about (requests may also bring their own manifests)",
    )
    serve.add_argument("--strict", action="store_true", help="treat every warning as an input error")
    add_max_input_size_flag(serve, "the cluster of -f in total, and each request line")
    add_profile_flags(serve)
    add_jobs_flag(serve, "answer the requests with their own manifests (at most the cores; fewer when they are busy)")
    serve.set_defaults(run=run)


def run(args, stdin, stdout: TextIO, stderr: TextIO) -> int:
    if "-" in args.filename:
        raise UsageError("serve reads its requests from stdin, so -f - cannot be the cluster")
    profile = profile_of(args)
    requests = stdin if hasattr(stdin, "read1") else stdin.buffer
    widen_pipe(requests)
    jobs = args.jobs or batch.default_jobs()
    if not args.filename:
        return serve(None, requests, stdout, profile, args.max_input_size, jobs)

    def read(under: profiles.Profile) -> Cluster:
        return load(args.filename, strict=args.strict, max_bytes=args.max_input_size, profile=under)

    cluster = read(profile)
    for warning in cluster.warnings:
        print(f"warning: {warning}", file=stderr)

    def loaded(other: profiles.Profile):
        """A request may ask for another profile: the cluster is read again under it."""
        return cluster if other == profile else read(other)

    return serve(loaded, requests, stdout, profile, args.max_input_size, jobs)
