"""A batch's queries split over processes (issue 13): `explain --all-models`
and `select --all` ground their queries in chunks, each chunk with the
cluster's facts (built once, before the workers fork, so every worker shares
them) and rendered to text where it was solved; the chunks' texts are
written in query order, so the output is the same for every `-j` (tests).

A chunk bounds the memory of one grounding, and every chunk grounds the
cluster's facts again (tens of milliseconds at 500 runtimes): chunks are as
large as the jobs allow, up to CHUNK queries (docs/performance.md).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from typing import Callable, Iterable, Iterator, NamedTuple, TextIO, TypeVar

from ome_asp.errors import Exit
from ome_asp.render import report

Item = TypeVar("Item")
Result = TypeVar("Result")

CHUNK = 50  # most queries one grounding holds: about 200 MB at 550 runtimes when explaining


def add_jobs_flag(parser: argparse.ArgumentParser, what: str, unit: str = "processes") -> None:
    parser.add_argument(
        "-j", "--jobs", type=jobs_count, default=None, metavar="N",
        help=f"{what} in N {unit} (default: the cores this process may use)",
    )


def jobs_count(text: str) -> int:
    """-j's value: a positive integer."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return int(text)


def default_jobs() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0))


def chunks(items: list[Item], jobs: int, most: int = CHUNK) -> list[list[Item]]:
    """`items` in order, cut into at least `jobs` chunks (when there are that
    many items) of at most `most` items, sizes differing by at most one."""
    count = max(min(jobs, len(items)), -(-len(items) // most), 1)
    size, extra = divmod(len(items), count)
    bounds = [k * size + min(k, extra) for k in range(count + 1)]
    return [items[bounds[k]:bounds[k + 1]] for k in range(count)]


def is_first(chunk: list[tuple[int, object]]) -> bool:
    """Whether a chunk of numbered items is the first (an empty batch has one, empty)."""
    return not chunk or chunk[0][0] == 0


_work: Callable | None = None  # the function forked workers call: set before the fork


def _call(item):
    return _work(item)


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
            yield lambda items: workers.imap(_call, items)
    finally:
        _work = None


def run(work: Callable[[Item], Result], items: list[Item], jobs: int) -> Iterator[Result]:
    """`work(item)` for each item, in order; in `jobs` forked processes when
    there is more than one of each (`pool`)."""
    with pool(work, min(jobs, len(items))) as mapped:
        yield from mapped(items)


class Chunk(NamedTuple):
    """A chunk of a batch, solved and rendered where it was solved."""

    text: str  # its items or sections, each after what separates it from the one before
    stderr: str
    codes: frozenset[int]  # the exit codes of its queries
    stats: dict  # its phase times and sizes (--timers, --stats)


def answer(work: Callable[[list], Chunk], items: list, jobs: int, output: str, stdout: TextIO, stderr: TextIO):
    """Write a batch: `work(chunk)` renders a chunk of `items` (a List's items
    for -o json/yaml, else text sections). Returns the batch's exit code, 1
    when some query's is 1 (an error, or no runtime used), else 3 when some
    query's is 3 (an outcome), else 0; and each chunk's stats."""
    codes: set[int] = set()
    stats = []
    for k, chunk in enumerate(run(work, chunks(items, jobs), jobs)):
        stderr.write(chunk.stderr)
        if k == 0:
            stdout.write(report.list_head(output, not items))
        stdout.write(chunk.text)
        codes |= chunk.codes
        stats.append(chunk.stats)
    stdout.write(report.list_tail(output, not items))
    return next((code for code in (Exit.ERROR, Exit.OUTCOME) if code in codes), Exit.OK), stats
