"""Values that look like another value but are not (D-115).

A value is compared by its code points (spec: names, formats and frameworks
match exactly), so `sаfetensors` with a Cyrillic `а` matches no
`safetensors`, yet both print the same; a zero-width or bidi-control
character prints as nothing at all, or reorders what follows. Reading says
so in a warning; the table escapes what cannot be seen (render/table.py).
"""

from __future__ import annotations

import unicodedata

#: Scripts whose letters are confused with each other's (Unicode TR39's
#: classic mixed-script case). Others -- Japanese mixing kana, kanji and
#: Latin -- mix legitimately and are left alone.
CONFUSABLE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")


def lookalike(text: str) -> str | None:
    """Why `text` may look like a value it is not, or None. Only for
    non-ASCII text: an ASCII value is what it looks like."""
    invisible = next((c for c in text if unicodedata.category(c) == "Cf"), None)
    if invisible is not None:
        return f"holds the invisible character U+{ord(invisible):04X} ({unicodedata.name(invisible, 'unnamed')})"
    scripts = {unicodedata.name(c, "").split(" ", 1)[0] for c in text if c.isalpha()}
    mixed = [script.title() for script in CONFUSABLE_SCRIPTS if script in scripts]
    if len(mixed) > 1:
        return f"mixes {' and '.join(mixed)} letters"
    return None
