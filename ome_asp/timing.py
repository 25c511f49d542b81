"""What a run does about its own time: phase timers (--timers, the benchmarks),
and the cyclic garbage collector paused while a large structure is built."""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager

#: The phases of a run, in order, and the key answer.Answer.stats uses for each.
PHASES = ("load", "facts", "ground", "solve", "decode", "output")


class Phases(dict):
    """Seconds per phase: `with phases("load"): ...`, or merged from engine stats."""

    @contextmanager
    def __call__(self, phase: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self[phase] = self.get(phase, 0.0) + time.perf_counter() - start

    def update(self, stats: dict) -> None:  # engine stats use "<phase>_s" keys
        for phase in PHASES:
            if f"{phase}_s" in stats:
                self[phase] = stats[f"{phase}_s"]

    def timers_line(self) -> str:
        parts = [f"{phase} {self[phase] * 1000:.1f} ms" for phase in PHASES if phase in self]
        return f"timers: {', '.join(parts)}, total {sum(self.values()) * 1000:.1f} ms"


@contextmanager
def gc_paused():
    """Build a large structure that is kept whole (a cluster, facts, an answer,
    a report) without the cyclic garbage collector, which would walk every
    object made so far again and again for nothing: a quarter of decoding's
    time at 100,000 atoms, a third of building the facts of 5,000 runtimes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
