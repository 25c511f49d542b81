"""Parameter-count sizes (spec Z1, Z2), computed exactly (I8, OQ-16).

No float ever touches a size: `0.5B`, `.5B` and `500M` are the same Fraction
by construction, and counts beyond 2**53 stay exact.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

_SIZE = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([MBT])?")
_MULTIPLIER = {None: 1, "M": 10**6, "B": 10**9, "T": 10**12}


def is_size(text: str) -> bool:
    """Z1: whether `text` is a size string (Z2 reads every other string as 0)."""
    return _SIZE.fullmatch(text) is not None


def parse_size(text: str) -> Fraction:
    """Z1: the count a size string stands for; Z2: 0 when it does not parse.

    fullmatch, not `$`: `$` would also accept a trailing newline.
    """
    match = _SIZE.fullmatch(text)
    if match is None:
        return Fraction(0)
    number, suffix = match.groups()
    return Fraction(number) * _MULTIPLIER[suffix]


def format_exact(value: Fraction) -> str:
    """The plain decimal form of a terminating rational: `3210000000`, `2.5`,
    `-7`. No exponent, no trailing zeros, no `.0`.

    Raises ValueError for a value with no finite decimal expansion; sizes and
    their sums and differences never are one.
    """
    value = Fraction(value)
    # A reduced fraction terminates iff its denominator is 2**a * 5**b; then
    # 10**max(a, b) is the fewest decimal places that represent it exactly.
    rest, places = value.denominator, 0
    for factor in (2, 5):
        count = 0
        while rest % factor == 0:
            rest //= factor
            count += 1
        places = max(places, count)
    if rest != 1:
        raise ValueError(f"{value} has no finite decimal expansion")
    digits = str(abs(value.numerator) * 10**places // value.denominator)
    sign = "-" if value < 0 else ""
    if places == 0:
        return sign + digits
    digits = digits.rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


# --- code-v0.1.5: Go's parseModelSize (profiles.md 3.2) ------------------------
# The text left after one suffix must be a Go floating-point literal as
# strconv.ParseFloat(s, 64) reads it; Python's float() is not that grammar (it
# allows spaces, rejects hex and accepts underscores anywhere between digits in
# other places), so the grammar is spelt out here and float()/float.fromhex()
# only convert what it accepted. Both round correctly to nearest, as Go does.

_DIGITS = r"[0-9](?:_?[0-9])*"
_HEX_DIGITS = r"[0-9a-fA-F](?:_?[0-9a-fA-F])*"
_GO_FLOAT = re.compile(
    rf"[+-]?(?:"
    rf"(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"  # decimal
    rf"|0[xX](?:{_HEX_DIGITS}(?:\.(?:{_HEX_DIGITS})?)?|\.{_HEX_DIGITS})[pP][+-]?{_DIGITS}"  # hexadecimal
    rf")"
)
_GO_INF = re.compile(r"[+-]?(?:inf|infinity)", re.IGNORECASE)
_GO_NAN = re.compile(r"nan", re.IGNORECASE)
_GO_MULTIPLIER = (("T", 1e12), ("B", 1e9), ("M", 1e6))  # checked in this order, one suffix only


def _go_parse_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64), or None where Go returns an error
    (syntax, or a finite literal beyond float64's range)."""
    if _GO_NAN.fullmatch(text):
        return math.nan
    if _GO_INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if not _GO_FLOAT.fullmatch(text):
        return None
    plain = text.replace("_", "")
    try:
        unsigned = plain.lstrip("+-")
        value = float.fromhex(plain) if unsigned[:2] in ("0x", "0X") else float(plain)
    except OverflowError:  # float.fromhex beyond float64: Go's ErrRange
        return None
    return None if math.isinf(value) else value  # float("1e400") is inf; Go: ErrRange


def parse_go_size(text: str) -> float:
    """code-v0.1.5's Z1: strip one trailing T, else B, else M (uppercase),
    multiply the ParseFloat value by 1e12 / 1e9 / 1e6 in float64; any error
    is 0. NaN and the infinities are values (profiles.md 3.2)."""
    multiplier = 1.0
    for suffix, factor in _GO_MULTIPLIER:
        if text.endswith(suffix):
            text, multiplier = text[: -len(suffix)], factor
            break
    value = _go_parse_float(text)
    return 0.0 if value is None else value * multiplier


def is_go_size(text: str) -> bool:
    """Whether Go's parseModelSize reads `text` without an error."""
    for suffix, _ in _GO_MULTIPLIER:
        if text.endswith(suffix):
            text = text[: -len(suffix)]
            break
    return _go_parse_float(text) is not None
