"""Regular expressions compiled on first use, not at import (issue 26 item 5,
D-140).

`re.compile` parses and compiles a pattern in Python: the explain path's
modules compiled 16 patterns at import, a fifth of the instructions of its
import, and a command uses only those its input needs (answer.py's decoders,
each for one shown atom; the loader's name checks). re's cache
(`re.fullmatch(text_pattern, ...)`) defers them too but costs a lookup per
call, too much for a decoder called per row.
"""

from __future__ import annotations

import re
from typing import Any


class Pattern:
    """`re.compile(pattern, flags)`, compiled when first used: then the
    compiled pattern's methods become this object's own attributes, so a call
    costs what a call of a module-level compiled pattern costs."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # only until the first use (then the attributes are found)
        compiled = re.compile(*self._source)
        for method in ("match", "fullmatch", "search", "split", "sub", "subn", "findall", "finditer"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)
