"""Phase timers for --timers and the benchmarks."""

from __future__ import annotations

import time
from contextlib import contextmanager

#: The phases of a run, in order, and the key engine.Answer.stats uses for each.
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
