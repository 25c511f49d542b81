"""The solver layer: objects to clingo facts, the encoding's program variants
grounded and solved, the answer set decoded into Python values.

solver/answer.py reads a Model's symbols through clingo's private C API
(`_p_symbols`, `clingo._internal`, D-54) and solver/worlds.py rewrites its AST:
only the clingo minor versions CI tests them on are accepted (pyproject.toml
pins the same), so another one stops at import with one clear line rather
than a wrong answer or a crash mid-solve."""

import clingo

from ome_asp.errors import UnsupportedClingo

TESTED_CLINGO = ((5, 7), (5, 8))


def check_clingo(version: str) -> None:
    """UnsupportedClingo unless `version` (clingo.__version__) is of a tested minor version."""
    if tuple(int(part) for part in version.split(".")[:2]) not in TESTED_CLINGO:
        tested = " or ".join(f"{major}.{minor}" for major, minor in TESTED_CLINGO)
        raise UnsupportedClingo(f"ome-asp needs clingo {tested} (installed: {version}): "
                                f"pip install 'clingo>={TESTED_CLINGO[0][0]}.{TESTED_CLINGO[0][1]},"
                                f"<{TESTED_CLINGO[-1][0]}.{TESTED_CLINGO[-1][1] + 1}'")


check_clingo(clingo.__version__)
