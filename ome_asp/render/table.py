"""The explain table (spec E11–E13).

`render_table` lays rows out in left-aligned columns three spaces apart. When
the natural width exceeds `width` (always 80 for the oracle, OQ-19), only the
two `shrink` columns narrow (E12) and their cells wrap (E13); every other
column keeps its natural width. Widths count code points.
"""

from __future__ import annotations

GAP = "   "  # E11: exactly three spaces between columns
BREAK_AFTER = "-.:"  # E13 / OQ-3: a long word may be cut just after one of these
MIN_FIRST = 7  # E12: the first shrink column (RUNTIME) never gets less
KEEP_SECOND = 16  # E12: the second (REASON) keeps min(16, natural) while RUNTIME can give way
MIN_AVAIL = 13  # E12: with less room for the two, nothing wraps


_SHORT = {"\n": "\\n", "\t": "\\t"}


def escape(value: str) -> str:
    """E13 step 1: a newline or tab prints as the two characters `\\n` / `\\t`,
    so one cell never spans lines by itself and widths stay countable; any
    other character that is not printable -- a bidi control that reorders
    the line, a zero-width space, a no-break space -- as `\\uXXXX` (D-115),
    so what a cell holds is what it shows."""
    if value.isprintable():
        return value
    return "".join(c if c.isprintable() else _SHORT.get(c) or (f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
                   for c in value)


def _break_word(word: str, width: int) -> tuple[list[str], str]:
    """E13 step 3: cut a word longer than `width` into full lines, each the
    longest prefix ending just after a break character, else exactly `width`
    characters. Returns the lines and the remainder (at most `width`).
    Linear in the word: each line looks only at its own `width` characters
    (the remainder is never copied per line, issue 18)."""
    pieces = []
    start = 0
    while len(word) - start > width:
        end = start + width
        cut = max(word.rfind(ch, start, end) for ch in BREAK_AFTER) + 1
        cut = cut if cut > start else end
        pieces.append(word[start:cut])
        start = cut
    return pieces, word[start:]


def wrap_cell(text: str, width: int) -> list[str]:
    """E13: wrap one (already escaped) cell into lines of at most `width`.

    Words are split on single spaces, so two spaces give an empty word that
    keeps the value's spacing. A cell that fits comes back as one line.
    """
    lines: list[str] = []
    line: str | None = None  # the open line; None before the first word

    def close(done: str | None) -> None:
        if done:  # "the current line (if non-empty) is closed"
            lines.append(done)

    for word in text.split(" "):
        if line is not None and len(line) + 1 + len(word) <= width:
            line = f"{line} {word}"
            continue
        close(line)
        pieces, line = _break_word(word, width)
        lines.extend(pieces)
    close(line)
    return lines or [""]


def _shrunk_widths(natural: list[int], first: int, second: int, width: int) -> list[int]:
    """E12, generalised to any number of columns: the widths to lay out at."""
    gaps = len(GAP) * (len(natural) - 1)
    if sum(natural) + gaps <= width:
        return natural
    avail = width - gaps - sum(n for i, n in enumerate(natural) if i not in (first, second))
    if avail < MIN_AVAIL:
        return natural  # absurdly wide fixed columns: wrapping cannot help
    widths = list(natural)
    widths[first] = min(natural[first], max(MIN_FIRST, avail - min(KEEP_SECOND, natural[second])))
    widths[second] = avail - widths[first]
    return widths


def render_table(
    columns: list[str],
    rows: list[list[str]],
    shrink: tuple[str, str] = ("RUNTIME", "REASON"),
    width: int = 80,
    headers: bool = True,
) -> str:
    """Render the explain table exactly as E11–E13 describe.

    `shrink` names the two columns that may narrow (E12's RUNTIME and REASON);
    the constants of E12 assume their headers are at most 7 and 6 long, so a
    header always fits its column. Every line ends with a newline. Without
    `headers` (--no-headers), the rows alone, laid out as if they were all.
    """
    if not (headers or rows):
        return ""
    header = [escape(h) for h in columns]
    cells = [[escape(c) for c in row] for row in rows]
    natural = [max(map(len, column)) for column in zip(*([header] if headers else []), *cells, strict=True)]
    first, second = columns.index(shrink[0]), columns.index(shrink[1])
    widths = _shrunk_widths(natural, first, second, width)

    def layout(parts: list[str]) -> str:
        # The last column is not padded; no line keeps trailing spaces (E11).
        padded = [p.ljust(w) for p, w in zip(parts[:-1], widths)] + parts[-1:]
        return GAP.join(padded).rstrip(" ") + "\n"

    out = [layout(header)] if headers else []  # the header never wraps
    for row in cells:
        # Only cells wider than their column can wrap, and only shrink columns
        # are ever narrower than natural.
        stacks = [wrap_cell(c, w) for c, w in zip(row, widths)]
        height = max(len(s) for s in stacks)
        for k in range(height):
            out.append(layout([s[k] if k < len(s) else "" for s in stacks]))
    return "".join(out)
