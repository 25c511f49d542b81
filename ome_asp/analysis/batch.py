"""A batch's queries split over processes (issue 13): `explain --all-models`
and `select --all` ground their queries in chunks, each chunk on the part of
the cluster its queries read (solver/sight.py: their namespaces and the
cluster-scoped objects, D-120) and rendered to text where it was solved; the
chunks' texts are written in query order, so the output is the same for every
`-j` and every chunking (tests).

A chunk bounds the memory of one grounding. Chunks are cut where the
namespace changes, so a namespace's runtimes are grounded with all of its
queries at once, and are as large as the jobs allow, up to CHUNK queries
and, for explain, ROWS rows (docs/performance.md, D-302).

`pool` and `run` map any work over forked processes in order: check's,
gen's and diff's batches of cases use them too. serve keeps `Workers`, forked
processes it hands pieces of each batch to and replaces when they have grown,
as many at a time as `Cores` finds free.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import resource
import sys
import time
from typing import Callable, Iterable, Iterator, NamedTuple, TextIO, TypeVar

from ome_asp.errors import FACTS_IN_PROGRESS, Exit
from ome_asp.input.objects import Query, RuntimeRef
from ome_asp.render import report
from ome_asp.solver import ask
from ome_asp.solver.answer import Answer
from ome_asp.solver.programs import Variant
from ome_asp.solver.sight import Sight

Item = TypeVar("Item")
Result = TypeVar("Result")

CHUNK = 50  # most queries one grounding holds
# Most rows (queries times their candidates) one grounding of explain holds:
# a row costs about 10 KB while its chunk is solved, decoded and written, so
# 7,000 rows keep a 200-runtime catalog's explain within 150 MB (D-302).
ROWS = 7_000


def default_jobs() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0))


def _seconds() -> float:
    """This process's CPU seconds (user and system)."""
    times = os.times()
    return times.user + times.system


class Cores:
    """How many of the `most` cores serve may use the rest of the machine
    leaves free: between two readings, the machine's busy CPU time
    (/proc/stat) less serve's own (this process's and what `spent` adds: its
    workers'), over the wall time. A core another process keeps busy is not
    free; one serve keeps busy is (issue 40: two workers where one core is
    busy were slower than one process). Without /proc/stat, every core is."""

    INTERVAL = 0.05  # seconds: a shorter interval keeps the last answer (the clock's ticks are 10 ms)

    def __init__(self, most: int) -> None:
        self.most = most
        self._free = most
        self._spent = 0.0
        self._last = self._reading()

    def spent(self, seconds: float) -> None:
        """CPU seconds serve's workers spent since the last reading."""
        self._spent += seconds

    def free(self) -> int:
        now = self._reading()
        if now is None or self._last is None:
            return self.most
        wall = now[0] - self._last[0]
        if wall >= self.INTERVAL:
            busy = (now[1] - self._last[1]) / os.sysconf("SC_CLK_TCK")
            others = max(0.0, busy - (now[2] - self._last[2]) - self._spent) / wall
            self._free = max(1, min(self.most, int(self.most - others + 0.5)))
            self._last, self._spent = now, 0.0
        return self._free

    @staticmethod
    def _reading() -> tuple[float, int, float] | None:
        """(wall seconds, the machine's busy clock ticks, this process's CPU seconds)."""
        try:
            with open("/proc/stat", "rb") as stat:
                ticks = [int(t) for t in stat.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
        return time.monotonic(), sum(ticks[:8]) - idle, _seconds()


GROWN_BYTES = 4 * 2**20  # a worker whose memory grew by more since its first piece is replaced


def _own_bytes() -> int:
    """The memory this process has written itself (Private_Dirty: a fork's
    pages shared with its parent are not, nor file pages the kernel may drop
    under pressure, which made resident memory shrink as a worker grew);
    where /proc is missing, its peak resident memory."""
    try:
        with open("/proc/self/smaps_rollup", "rb") as rollup:
            return next(int(line.split()[1]) for line in rollup if line.startswith(b"Private_Dirty:")) * 1024
    except (OSError, ValueError, StopIteration):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024  # bytes on macOS, kilobytes elsewhere


def _answer_pieces(connection, work: Callable) -> None:
    """A worker's loop: each piece received, its result sent back with the
    CPU seconds it took and the process's memory, until None comes."""
    while (piece := connection.recv()) is not None:
        start = _seconds()
        try:
            result = work(piece)
        except Exception as error:  # the parent raises it, with the facts this process was solving
            error.facts_in_progress = FACTS_IN_PROGRESS.get()
            connection.send((error, _seconds() - start, _own_bytes(), True))
            continue
        connection.send((result, _seconds() - start, _own_bytes(), False))


class Workers:
    """Forked processes that answer pieces of work (`work(piece)`), one piece
    each at a time, forked when first needed, so each inherits what this
    process holds then. clingo keeps every symbol a process ever makes, and a
    batch of worlds makes new ones (each world's atoms carry its number): a
    worker whose own memory (`_own_bytes`) has grown by more than GROWN_BYTES
    since its first piece is replaced by a new fork, so memory stays flat however long
    serve runs (issue 40). `cores`, when given, is told each piece's CPU time."""

    def __init__(self, work: Callable, cores: Cores | None = None) -> None:
        import multiprocessing  # only a parallel serve needs it

        self._context = multiprocessing.get_context("fork")
        self._work = work
        self._cores = cores
        self._idle: list[list] = []  # [process, connection, memory after its first piece or None]

    def map(self, pieces: list, during: Callable[[], object]) -> tuple[list, object]:
        """`work(piece)` of each piece, in order, each in its own worker; and
        what `during()` returns, called here while they work."""
        busy = [self._idle.pop() if self._idle else self._fork() for _ in pieces]
        for (_, connection, _), piece in zip(busy, pieces):
            connection.send(piece)
        mine = during()
        results, failed = [], None
        for worker in busy:
            result, seconds, memory, raised = worker[1].recv()
            if self._cores is not None:
                self._cores.spent(seconds)
            if raised and failed is None:
                failed = result
            results.append(result)
            if worker[2] is None:
                worker[2] = memory
            if memory - worker[2] > GROWN_BYTES:
                self._retire(worker)
            else:
                self._idle.append(worker)
        if failed is not None:
            FACTS_IN_PROGRESS.set(getattr(failed, "facts_in_progress", FACTS_IN_PROGRESS.get()))
            raise failed
        return results, mine

    def _fork(self) -> list:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(target=_answer_pieces, args=(theirs, self._work), daemon=True)
        process.start()
        theirs.close()
        return [process, ours, None]

    def _retire(self, worker: list) -> None:
        process, connection, _ = worker
        connection.send(None)
        connection.close()
        process.join()

    def close(self) -> None:
        while self._idle:
            self._retire(self._idle.pop())


def chunks(items: list[Item], jobs: int, most: int, key: Callable[[Item], object] = lambda item: None) -> list[list[Item]]:
    """`items` in order, in chunks no larger than those that cut them evenly
    into `jobs` chunks (when there are that many items), nor than `most`; cut
    where `key` changes: a run of items of one key starts a new chunk where it
    would overflow the one before, and a run longer than a chunk is cut into
    as few pieces as fit, their sizes differing by at most one."""
    count = max(min(jobs, len(items)), -(-len(items) // most), 1)
    size = -(-len(items) // count)  # the largest chunk
    cut: list[list[Item]] = []
    current: list[Item] = []
    for _, run in itertools.groupby(items, key):
        same = list(run)
        if current and len(current) + len(same) > size:
            cut.append(current)
            current = []
        if len(same) > size:  # current is empty here
            pieces = -(-len(same) // size)
            step, extra = divmod(len(same), pieces)
            bounds = [k * step + min(k, extra) for k in range(pieces + 1)]
            cut += [same[bounds[k]:bounds[k + 1]] for k in range(pieces - 1)]
            same = same[bounds[-2]:]
        current += same
    return [*cut, current]


def is_first(chunk: list[tuple[int, object]]) -> bool:
    """Whether a chunk of numbered items is the first (an empty batch has one, empty)."""
    return not chunk or chunk[0][0] == 0


_work: Callable | None = None  # the function forked workers call: set before the fork


def _call(item):
    try:
        return _work(item)
    except Exception as error:  # the parent's reproduction holds the facts this process was solving
        error.facts_in_progress = FACTS_IN_PROGRESS.get()
        raise


def _imap(workers, items: Iterable) -> Iterator:
    try:
        yield from workers.imap(_call, items)
    except Exception as error:
        FACTS_IN_PROGRESS.set(getattr(error, "facts_in_progress", FACTS_IN_PROGRESS.get()))
        raise


@contextlib.contextmanager
def pool(work: Callable[[Item], Result], jobs: int) -> Iterator[Callable[[Iterable[Item]], Iterator[Result]]]:
    """A map of `work` over items, in order, kept for many calls (serve maps
    each batch it reads): in `jobs` processes forked once, on entry, so `work`
    and what it reads are inherited (never pickled) and each worker keeps what
    it caches from batch to batch; each result is pickled back. One job maps
    in this process."""
    global _work
    if jobs <= 1:
        yield lambda items: map(work, items)
        return
    import multiprocessing  # only a parallel batch needs it

    _work = work
    try:
        with multiprocessing.get_context("fork").Pool(jobs) as workers:
            yield lambda items: _imap(workers, items)
    finally:
        _work = None


def run(work: Callable[[Item], Result], items: list[Item], jobs: int) -> Iterator[Result]:
    """`work(item)` for each item, in order; in `jobs` forked processes when
    there is more than one of each (`pool`)."""
    with pool(work, min(jobs, len(items))) as mapped:
        yield from mapped(items)


class Chunk(NamedTuple):
    """A chunk of a batch, solved and rendered where it was solved."""

    # its items or sections, each after what separates it from the one before:
    # written one by one (joined, a chunk's text was copied twice more, D-302)
    pieces: list[str]
    stderr: str
    codes: frozenset[int]  # the exit codes of its queries
    stats: dict  # its phase times and sizes (--timers, --stats)
    findings: tuple = ()  # its checks, for -o junit|sarif|github (render/ci.py), written after the last chunk


def cut(queries: list[Query], jobs: int, candidates: Callable[[Query], int] | None = None) -> list[list[tuple[int, Query]]]:
    """A batch's numbered queries in chunks for `jobs` processes, cut where the
    namespace changes (each chunk grounds what its queries read, D-120); with
    `candidates` (a query's number of rows: explain's), chunks of at most
    ROWS rows, counted at the query with the most (D-302)."""
    most = CHUNK if candidates is None else max(1, min(CHUNK, ROWS // max([1, *map(candidates, queries)])))
    return chunks(list(enumerate(queries)), jobs, most, lambda item: item[1].namespace)


def unseen_denials(sight: Sight, parts: list[list[tuple[int, Query]]], sizes: bool = False) -> ask.Run | None:
    """The admission webhook's program (Variant.ADMIT) on the runtimes some
    chunk does not read (Sight.unseen), once, before the chunks: with each
    chunk's own denials (`denials`), the whole cluster's (I9). None when every
    chunk reads every runtime."""
    unseen = sight.unseen([[q for _, q in part] for part in parts])
    return ask.ask(unseen, [], Variant.ADMIT, sizes=sizes) if unseen.runtimes else None


def denials(before: ask.Run | None, result: Answer) -> list[tuple[RuntimeRef, str]]:
    """I9 of the whole cluster, as report.denials gives it for one grounding of
    it: a chunk's own denials with those computed before the chunks."""
    found = report.denials(result) + ([] if before is None else report.denials(before.answer))
    return sorted(set(found), key=lambda denial: report.runtime_sort_key(denial[0]))


def answer(work: Callable[[list], Chunk], parts: list[list[tuple[int, Query]]], jobs: int, output: str,
           stdout: TextIO, stderr: TextIO):
    """Write a batch: `work(chunk)` renders a chunk of numbered queries (`cut`;
    a List's items for -o json/yaml, else text sections). Returns the batch's
    exit code, 1 when some query's is 1 (an error, or no runtime used), else 3
    when some query's is 3 (an outcome), else 0; each chunk's stats; and the
    chunks' findings, in query order."""
    codes: set[int] = set()
    stats = []
    findings: list = []
    empty = parts == [[]]
    for k, chunk in enumerate(run(work, parts, jobs)):
        stderr.write(chunk.stderr)
        if k == 0:
            stdout.write(report.list_head(output, empty))
        stdout.writelines(chunk.pieces)
        codes |= chunk.codes
        stats.append(chunk.stats)
        findings += chunk.findings
    stdout.write(report.list_tail(output, empty))
    return next((code for code in (Exit.ERROR, Exit.OUTCOME) if code in codes), Exit.OK), stats, findings
