"""The differential oracle (docs/oracle.md, "Differential testing"): what
`ome-asp diff` and `diff --exhaustive` (ome_asp/conformance/diff.py,
exhaustive.py) share. Another implementation is asked each case as one JSON
request line, `{"id", "profile", "namespace", "model" | "isvc", "manifests"}`,
on its stdin; it answers one JSON line, `{"id", "selected", "ranking",
["rejected"], ["message"]}` (the shape of expected.yaml's explain answer) or
`{"id", "error"}` (`{"id", "report": RuntimeExplainReport}`, serve's answer,
is read too). `Implementation` runs it (once per request, or once for all
with --batch), `compare` judges its answer against ome-asp's.

A disagreement is shrunk by greedy delta debugging: delete one document, list
item or mapping key at a time (documents first, then shallower paths), keep
the deletion when ome-asp's answer keeps its status (a report, or the same
error) and the two still disagree, until no deletion does.
The result is written as a case directory (case.yaml, manifests.yaml, and
ome-asp's answer as expected.yaml, so `ome-asp check` runs it) with the
implementation's answer (implementation.yaml) and both side by side
(comparison.txt).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import queue
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import IO, Callable

from ome_asp.conformance import cases
from ome_asp.render import case_files
from ome_asp.render.case_files import exercised_rules

BATCH_ITEMS = 64  # ome-asp answers the items this many at a time, one world each


# --- cases ---------------------------------------------------------------------


@dataclass
class Item:
    """One case to compare: where it comes from, its manifests, query and profile."""

    name: str
    documents: list
    query: dict
    profile: str


def request(item: Item, documents: list | None = None) -> dict:
    return {"id": item.name, "profile": item.profile, **{k: v for k, v in item.query.items() if k != "flags"},
            "manifests": item.documents if documents is None else documents}


# --- ome-asp's answer ----------------------------------------------------------


def oracle(documents: list, item: Item) -> dict:
    """ome-asp's explain answer for these documents and the item's query."""
    return cases.answer(*explain_request(documents, item))


def explain_request(documents: list, item: Item) -> tuple:
    return "explain", case_files.dump_manifests(documents).encode(), item.query, item.profile, ()


def status(answer: dict) -> str:
    """What kind of answer it is: a report, or which error (an input error
    without its place in the input, so shrinking keeps its meaning)."""
    if "error" not in answer:
        return "report"
    return re.sub(r"^<stdin>:\d+: document \d+(, item \d+)?: ", "", answer["error"])


# --- the implementation ------------------------------------------------------------


class ImplementationError(Exception):
    """The implementation did not answer a request (crash, timeout, not JSON)."""


#: An answer line longer than this is not read on: memory stays bounded
#: whatever the implementation writes (`yes`, issue 18).
MAX_ANSWER_BYTES = 16 * 2**20
#: The end of the implementation's stderr kept (in memory, the rest read and
#: dropped) for the messages that quote it: a temporary file of its whole
#: stderr took 7.4 GB of disk in a 2-case run (issue 38).
STDERR_TAIL_BYTES = 2**16


class Implementation:
    """Runs CMD per request, or once for all requests (batch). Every write
    and every read is bounded by the timeout, and what is read by
    MAX_ANSWER_BYTES per line and a few lines ahead, its stderr by
    STDERR_TAIL_BYTES; output that is not UTF-8 is a wrong answer like any
    other (docs/oracle.md)."""

    def __init__(self, command: str, batch: bool, timeout: float) -> None:
        self.command, self.batch, self.timeout = command, batch, timeout
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue(maxsize=4)
        self.stderr = b""  # the last STDERR_TAIL_BYTES of what its processes wrote there
        self.draining: threading.Thread | None = None
        self.calls = 0
        self.timeouts = 0  # requests that had no answer within the timeout

    def ask(self, message: dict) -> dict:
        self.calls += 1
        line = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        return self._parse(self._batch(line) if self.batch else self._once(line), message)

    def ask_all(self, messages: list[dict]) -> list[dict | ImplementationError]:
        """Each message's answer, or why there is none. In batch mode the
        requests are pipelined -- all written (by a thread) before the answers
        are read in order, each within the timeout -- so an implementation
        that reads ahead (serve) answers them together; after a missing
        answer the rest are asked one at a time."""
        if not self.batch or not messages:
            return [self._tried(m) for m in messages]
        if self.process is None or self.process.poll() is not None:
            self._start()
        self.calls += len(messages)
        data = b"".join((json.dumps(m, ensure_ascii=False) + "\n").encode("utf-8") for m in messages)
        threading.Thread(target=self._write, args=(self.process, data, False), daemon=True).start()
        answers: list[dict | ImplementationError] = []
        for message in messages:
            try:
                line = self.lines.get(timeout=self.timeout)
            except queue.Empty:
                self.timeouts += 1
                line = None
            if line is None:
                self.close(kill=True)
                break
            if isinstance(line, ImplementationError):  # the reader stopped after it
                answers.append(line)
                self.close(kill=True)
                break
            try:
                answers.append(self._parse(line, message))
            except ImplementationError as error:
                answers.append(error)
        return answers + [self._tried(m) for m in messages[len(answers):]]

    def _tried(self, message: dict) -> dict | ImplementationError:
        try:
            return self.ask(message)
        except ImplementationError as error:
            return error

    def _parse(self, data: bytes, message: dict) -> dict:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ImplementationError(f"an answer that is not UTF-8 (byte 0x{data[error.start]:02x})") from None
        try:
            answer = json.loads(text)
        except (ValueError, RecursionError):
            raise ImplementationError(f"not a JSON answer: {text.strip()[:200]!r}") from None
        if not isinstance(answer, dict):
            raise ImplementationError(f"not a JSON object: {text.strip()[:200]!r}")
        try:  # a "\\ud800" escape decodes to a lone surrogate, which no answer file can hold (issue 28)
            json.dumps(answer, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ImplementationError("an answer holding a lone surrogate (a \\ud800-style escape): not text") from None
        if answer.get("id") != message["id"]:
            raise ImplementationError(f"answer for id {answer.get('id')!r}, asked {message['id']!r}")
        return answer

    def _once(self, line: bytes) -> bytes:
        """A process for this request: its first output line, once it has exited 0."""
        self._start()
        deadline = time.monotonic() + self.timeout
        try:
            answer = self._exchange(line, close_input=True)
            if isinstance(answer, ImplementationError):  # nothing it does next can make it an answer
                self.close(kill=True)
                raise answer
            assert self.process is not None  # _start's
            try:
                code = self.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.timeouts += 1
                self.close(kill=True)  # it had its time: no grace period on top
                raise ImplementationError(f"no answer within {self.timeout:g} s") from None
            if code != 0:
                raise ImplementationError(f"exit {code}{self._stderr_tail()}")
            return answer or b""
        finally:
            self.close()

    def _batch(self, line: bytes) -> bytes:
        if self.process is None or self.process.poll() is not None:
            self._start()
        answer = self._exchange(line, close_input=False)
        if isinstance(answer, ImplementationError):  # the reader stopped: start afresh next time
            self.close(kill=True)
            raise answer
        if answer is None:  # end of output, a broken pipe or a timeout: start afresh next time
            self.close()
            raise ImplementationError(f"no answer (the process ended or took more than {self.timeout:g} s){self._stderr_tail()}")
        return answer

    def _exchange(self, line: bytes, close_input: bool) -> bytes | ImplementationError | None:
        """Write `line`, then wait for the next output line: both within the
        timeout. None when no line came (counted in `timeouts` when it was
        the time), an error for a line too long to be an answer."""
        deadline = time.monotonic() + self.timeout
        writer = threading.Thread(target=self._write, args=(self.process, line, close_input), daemon=True)
        writer.start()
        writer.join(self.timeout)
        if writer.is_alive():  # it does not read its input: the write would block forever
            self.close(kill=True)
            raise ImplementationError(f"did not read its input within {self.timeout:g} s")
        try:
            return self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self.timeouts += 1
            return None

    @staticmethod
    def _write(process: subprocess.Popen, line: bytes, close_input: bool) -> None:
        stdin = process.stdin
        assert stdin is not None  # opened with stdin=PIPE
        try:
            stdin.write(line)
            stdin.flush()
            if close_input:
                stdin.close()
        except (OSError, ValueError):  # it ended, or was ended: no answer will come
            pass

    def _start(self) -> None:
        self.lines = queue.Queue(maxsize=4)
        # A session of its own: ending it ends the shell's children too (`sh -c yes`).
        self.process = subprocess.Popen(self.command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, start_new_session=True)
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines), daemon=True).start()
        self.draining = threading.Thread(target=self._drain, args=(self.process.stderr,), daemon=True)
        self.draining.start()

    @staticmethod
    def _read(stream: IO[bytes], lines: queue.Queue) -> None:
        try:
            while line := stream.readline(MAX_ANSWER_BYTES + 1):
                if len(line) > MAX_ANSWER_BYTES:  # not an answer, said at once; nothing after it is read
                    lines.put(ImplementationError(f"an answer line longer than {MAX_ANSWER_BYTES // 2**20} MiB: {line[:60]!r}…"))
                    break
                if line.strip():
                    lines.put(line)
        except (OSError, ValueError):  # the stream was closed under us
            pass
        lines.put(None)

    def _drain(self, stream: IO[bytes]) -> None:
        """Read the process's stderr to its end, keeping the last STDERR_TAIL_BYTES."""
        try:
            with stream:
                while chunk := os.read(stream.fileno(), STDERR_TAIL_BYTES):  # what is there, not a full buffer
                    self.stderr = (self.stderr + chunk)[-STDERR_TAIL_BYTES:]
        except (OSError, ValueError):  # the stream was closed under us
            pass

    def _stderr_tail(self) -> str:
        """The end of its stderr, once the process that wrote it has ended (a
        moment at most: what it left running may hold the pipe open)."""
        if self.draining is not None:
            self.draining.join(1.0)
        tail = self.stderr[-300:].decode("utf-8", "replace").strip()
        return f": {tail}" if tail else ""

    def close(self, kill: bool = False) -> None:
        """End the process: after it saw the end of its input (5 s), or at
        once with `kill` (it does not read its input)."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if kill:
                _kill(process)
            if process.stdin is not None:  # opened with stdin=PIPE
                process.stdin.close()
            process.wait(timeout=5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            _kill(process)
            process.wait()
        # what it left running in its session (a `cmd &`) ends with it (issue 28:
        # such children held the output open, each case waited, and they stayed)
        _kill(process)


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:  # ended already
        pass


# --- comparing -------------------------------------------------------------------


def normalize(answer: dict, namespace: str) -> dict:
    """An implementation's answer in expected.yaml's explain shape (fields it
    does not give stay out), or {"error": ...}."""
    if "report" in answer and isinstance(answer["report"], dict):
        try:
            return case_files.explain_answer(answer["report"])
        except (KeyError, TypeError, AttributeError, ValueError, IndexError) as error:
            # a report of the wrong shape ({"rows": "x"}) is a wrong answer, not ome-asp's failure (issue 28)
            raise ImplementationError(f"a report explain -o json never gives ({type(error).__name__}: {error})"[:300]) from None
    if "error" in answer:
        return {"error": str(answer["error"])}
    if not isinstance(answer.get("ranking"), list) or "selected" not in answer:
        raise ImplementationError('an answer needs "selected" and "ranking" (or "error")')
    result = {"selected": _runtime(answer["selected"], namespace) if answer["selected"] else None,
              "ranking": [_row(row, namespace) for row in answer["ranking"]]}
    if isinstance(answer.get("rejected"), list):
        result["rejected"] = [_row(row, namespace) for row in answer["rejected"]]
    if "message" in answer:
        result["message"] = answer["message"]
    return result


def _runtime(value: object, namespace: str) -> dict:
    if not isinstance(value, dict) or "kind" not in value or "name" not in value:
        raise ImplementationError(f"a runtime is {{kind, namespace, name}}, got {json.dumps(value)[:100]}")
    return {"kind": value["kind"], "namespace": value.get("namespace", namespace) if value["kind"] == "ServingRuntime" else None,
            "name": value["name"]}


def _row(row: dict, namespace: str) -> dict:
    return {**_runtime(row, namespace), **{k: v for k, v in row.items() if k not in ("kind", "namespace", "name")}}


def _number(value: object) -> object:
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return value


def _same(key: str, ours: object, theirs: object) -> bool:
    if key in ("score", "distance", "priority", "weight") and ours is not None and theirs is not None:
        return _number(ours) == _number(theirs)
    return ours == theirs


def _key(runtime: dict) -> tuple:
    return runtime["kind"], runtime["namespace"], runtime["name"]


def _show(runtime: dict | None) -> str:
    if runtime is None:
        return "none"
    return f"{runtime['kind']} {runtime['namespace']}/{runtime['name']}" if runtime["namespace"] else f"{runtime['kind']} {runtime['name']}"


def compare(ours: dict, theirs: dict) -> list[str]:
    """The differences between ome-asp's answer and the implementation's, on
    what the implementation answered (empty: they agree)."""
    if "error" in ours or "error" in theirs:
        if ("error" in ours) == ("error" in theirs):
            return []
        side = "ome-asp" if "error" in ours else "the implementation"
        return [f"only {side} reports an error: {ours.get('error') or theirs.get('error')}"]
    found = []
    if theirs["selected"] != ours["selected"]:
        found.append(f"selected: ome-asp {_show(ours['selected'])}, implementation {_show(theirs['selected'])}")
    for what in ("ranking", "rejected"):
        if what not in theirs:
            continue
        mine, other = ours[what], theirs[what]
        if [_key(r) for r in mine] != [_key(r) for r in other]:
            found.append(f"{what}: ome-asp [{', '.join(map(_show, mine))}], implementation [{', '.join(map(_show, other))}]")
            continue
        for a, b in zip(mine, other):
            for key in b.keys() - {"kind", "namespace", "name"}:
                if not _same(key, a.get(key), b[key]):
                    found.append(f"{_show(a)} {key}: ome-asp {a.get(key)!r}, implementation {b[key]!r}")
    if "message" in theirs and theirs["message"] != ours["message"]:
        found.append(f"message: ome-asp {ours['message']!r}, implementation {theirs['message']!r}")
    return found


def restricted(ours: dict, theirs: dict) -> dict:
    """ome-asp's answer with only the fields the implementation answered (for side by side)."""
    if "error" in ours or "error" in theirs:
        return ours
    keys = {k for row in theirs.get("ranking", []) + theirs.get("rejected", []) for k in row}
    result = {k: ours[k] for k in theirs if k in ours}
    for what in ("ranking", "rejected"):
        if what in result:
            result[what] = [{k: v for k, v in row.items() if k in keys} for row in ours[what]]
    return result


def side_by_side(left: str, right: str, titles: tuple[str, str] = ("ome-asp", "implementation")) -> str:
    """Two texts in columns, `|` marking the lines that differ."""
    a, b = left.splitlines(), right.splitlines()
    width = max([len(line) for line in a] + [len(titles[0])])
    rows = [(titles[0], " ", titles[1]), ("-" * width, " ", "-" * len(titles[1]))]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        span = max(i2 - i1, j2 - j1)
        for k in range(span):
            mine = a[i1 + k] if i1 + k < i2 else ""
            other = b[j1 + k] if j1 + k < j2 else ""
            rows.append((mine, " " if tag == "equal" else "|", other))
    return "".join(f"{mine.ljust(width)} {mark} {other}".rstrip() + "\n" for mine, mark, other in rows)


# --- shrinking ---------------------------------------------------------------------


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every deletable position below `value` (list items and mapping keys)."""
    found = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found.append(prefix + (key,))
        found += _paths(child, prefix + (key,))
    return found


def _without(documents: list, path: tuple) -> list:
    trimmed = copy.deepcopy(documents)
    container = trimmed
    for key in path[:-1]:
        container = container[key]
    del container[path[-1]]
    return trimmed


def shrink(documents: list, still_fails: Callable[[list], bool]) -> list:
    """Greedy delta debugging: delete documents, then list items and keys
    (shallower first), keeping every deletion after which `still_fails`."""
    current = documents
    index = 0
    while True:
        paths = sorted(_paths(current), key=len)
        if index >= len(paths):
            return current
        candidate = _without(current, paths[index])
        if still_fails(candidate):
            current = candidate  # the same index now names the next position
        else:
            index += 1


# --- disagreements -------------------------------------------------------------------


@dataclass
class Disagreement:
    item: Item
    differences: list[str]
    documents: list
    ours: dict
    theirs: dict
    raw: dict = field(default_factory=dict)


def examine(item: Item, impl: Implementation, documents: list | None = None, ours: dict | None = None) -> tuple[dict, dict, dict, list[str]]:
    """(ome-asp's answer, unless given, the implementation's raw and normalized answers, differences)."""
    documents = item.documents if documents is None else documents
    ours = oracle(documents, item) if ours is None else ours
    return (ours, *judged(item, ours, impl._tried(request(item, documents))))


def judged(item: Item, ours: dict, raw: dict | ImplementationError) -> tuple[dict, dict, list[str]]:
    """(the implementation's raw and normalized answers, the differences from ome-asp's)."""
    try:
        if isinstance(raw, ImplementationError):
            raise raw
        theirs = normalize(raw, item.query["namespace"])
    except ImplementationError as error:
        return {}, {"error": f"implementation failed: {error}"}, [f"the implementation failed: {error}"]
    return raw, theirs, compare(ours, theirs)


def minimize(item: Item, impl: Implementation, ours: dict) -> Disagreement:
    """Shrink the item's documents while ome-asp's answer keeps its status and the two disagree."""
    kind = status(ours)
    seen: dict[str, bool] = {}

    def still_fails(documents: list) -> bool:
        key = json.dumps(documents, sort_keys=True)
        if key not in seen:
            mine, _, _, found = examine(item, impl, documents)
            seen[key] = status(mine) == kind and bool(found)
        return seen[key]

    documents = shrink(item.documents, still_fails)
    mine, raw, theirs, found = examine(item, impl, documents)
    return Disagreement(item, found, documents, mine, theirs, raw)


def write_counterexample(directory: Path, found: Disagreement, command: str) -> None:
    item = found.item
    spec = {
        "description": f"ome-asp diff: `{command}` disagrees on {item.name} (shrunk): {found.differences[0]}",
        "rules": exercised_rules(found.documents, item.query, {"explain": found.ours}),
        "profile": item.profile,
        "query": item.query,
        "check": ["explain"],
    }
    case_files.write(directory, spec, found.documents, {"explain": found.ours})
    with case_files.writing(directory):
        (directory / "implementation.yaml").write_text(case_files.dump(found.theirs), encoding="utf-8")
        (directory / "comparison.txt").write_text(
            "\n".join(found.differences) + "\n\n"
            + side_by_side(case_files.dump(restricted(found.ours, found.theirs)), case_files.dump(found.theirs)), encoding="utf-8")
