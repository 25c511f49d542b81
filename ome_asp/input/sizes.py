"""Parameter-count sizes (spec Z1, Z2), computed exactly (I8, OQ-16).

No float ever touches a size: `0.5B`, `.5B` and `500M` are the same Fraction
by construction, and counts beyond 2**53 stay exact.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

from ome_asp.patterns import Pattern

_SIZE = Pattern(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([MBT])?")
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


@functools.lru_cache(maxsize=2**10)  # a table repeats a few distances
def in_units(text: str) -> str:
    """An exact count (format_exact's text) as the manifests write sizes
    (issue 36): in the largest of T, B, M it reaches, exactly (`15B`, `1.5M`,
    `7.25B`); below a million, or a text that is not a decimal (code-v0.1.5's
    `+Inf`), as it is. For text output only: JSON keeps the exact decimal."""
    try:
        value = Fraction(text)
    except ValueError:
        return text
    for suffix in ("T", "B", "M"):
        if abs(value) >= _MULTIPLIER[suffix]:
            return format_exact(value / _MULTIPLIER[suffix]) + suffix
    return text


# --- code-v0.1.5: Go's parseModelSize (docs/profiles.md 3.2, issue 17) ------------
# The text left after one suffix must be what strconv.ParseFloat(s, 64) of Go
# 1.25 (OME v0.1.5's go.mod) reads whole. Its grammar is spelt out below after
# Go's own steps -- special (inf, infinity, nan), readFloat (sign, 0x prefix,
# digits, dot, exponent), underscoreOK -- because Python's float() is another
# grammar (it allows spaces and underscores after a dot, rejects hex, reads
# Unicode digits). float() and float.fromhex() then only convert the literal
# the scan accepted; both round correctly to nearest even, as Go's converters
# (Eisel-Lemire, the decimal fallback, atofHex) do.

_DECIMAL = frozenset("0123456789")
_HEX = _DECIMAL | frozenset("abcdefABCDEF")
_EXPONENT_CAP = 10_000  # readFloat stops adding exponent digits once e >= 10000
_GO_MULTIPLIER = (("T", 1e12), ("B", 1e9), ("M", 1e6))  # checked in this order, one suffix only


def _special(text: str) -> float | None:
    """strconv's special, required to read the whole text (ParseFloat's
    `n != len(s)` check): an optional sign, then `inf` or `infinity`, or an
    unsigned `nan`, each in any ASCII case."""
    body, sign = text, 1.0
    if body[:1] in ("+", "-"):
        body, sign = body[1:], -1.0 if body[0] == "-" else 1.0
        return sign * math.inf if body.isascii() and body.lower() in ("inf", "infinity") else None
    if text.isascii() and text.lower() in ("inf", "infinity"):
        return math.inf
    if text.isascii() and text.lower() == "nan":
        return math.nan
    return None


def _underscore_ok(text: str) -> bool:
    """strconv's underscoreOK: an underscore only between two digits, or
    between a base prefix (`0x`) and a digit; in hex, a-f are digits."""
    saw = "^"  # ^ start, 0 a digit or the prefix, _ an underscore, ! anything else
    body = text[1:] if text[:1] in ("+", "-") else text
    hexadecimal = body[:2] in ("0x", "0X")
    if hexadecimal:
        body, saw = body[2:], "0"
    for c in body:
        if c in (_HEX if hexadecimal else _DECIMAL):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _read_float(text: str) -> tuple[bool, str, str, int] | None:
    """strconv's readFloat over the whole text: (hexadecimal, sign, mantissa
    without underscores, exponent as Go reads it), or None for a syntax
    error. A hex mantissa needs a `p` exponent; an exponent needs a digit
    after its sign; a dot may stand alone on either side of the digits."""
    n, i, sign = len(text), 0, ""
    if i < n and text[i] in ("+", "-"):
        sign, i = text[i], i + 1
    hexadecimal = i + 2 < n and text[i] == "0" and text[i + 1] in ("x", "X")
    digits, exponent_char = (_HEX, "pP") if hexadecimal else (_DECIMAL, "eE")
    i += 2 if hexadecimal else 0
    start, underscores, dot, seen_digit = i, False, False, False
    while i < n:
        c = text[i]
        if c == "_":
            underscores = True
        elif c == ".":
            if dot:
                break
            dot = True
        elif c in digits:
            seen_digit = True
        else:
            break
        i += 1
    if not seen_digit:
        return None
    mantissa = text[start:i].replace("_", "")
    exponent = 0
    if i < n and text[i] in exponent_char:
        i += 1
        negative = i < n and text[i] == "-"
        i += 1 if i < n and text[i] in ("+", "-") else 0
        if i >= n or text[i] not in _DECIMAL:
            return None
        while i < n and (text[i] in _DECIMAL or text[i] == "_"):
            if text[i] == "_":
                underscores = True
            elif exponent < _EXPONENT_CAP:
                exponent = exponent * 10 + int(text[i])
            i += 1
        exponent = -exponent if negative else exponent
    elif hexadecimal:
        return None
    if i != n or (underscores and not _underscore_ok(text)):
        return None
    return hexadecimal, sign, mantissa, exponent


def _go_parse_float(text: str) -> float | None:
    """strconv.ParseFloat(text, 64), or None where Go returns an error: a
    syntax error, or ErrRange for a literal beyond float64 (Go's +-Inf); an
    underflow is 0 or a subnormal, not an error, in both languages."""
    special = _special(text)
    if special is not None:
        return special
    read = _read_float(text)
    if read is None:
        return None
    hexadecimal, sign, mantissa, exponent = read
    try:
        value = (float.fromhex(f"{sign}0x{mantissa}p{exponent}") if hexadecimal
                 else float(f"{sign}{mantissa}e{exponent}"))
    except OverflowError:  # float.fromhex beyond float64
        return None
    return None if math.isinf(value) else value  # float() rounds to inf instead


# A cluster writes a few distinct sizes, read by the loader and again by the
# facts, and serve reads the same ones request after request: parsed once
# (bounded: a client may send ever new ones).
@functools.lru_cache(maxsize=2**12)
def parse_go_size(text: str) -> float:
    """code-v0.1.5's Z1: strip one trailing T, else B, else M (uppercase),
    multiply the ParseFloat value by 1e12 / 1e9 / 1e6 in float64; any error
    is 0. NaN and the infinities are values (docs/profiles.md 3.2)."""
    multiplier = 1.0
    for suffix, factor in _GO_MULTIPLIER:
        if text.endswith(suffix):
            text, multiplier = text[: -len(suffix)], factor
            break
    value = _go_parse_float(text)
    return 0.0 if value is None else value * multiplier


@functools.lru_cache(maxsize=2**12)  # as parse_go_size
def is_go_size(text: str) -> bool:
    """Whether Go's parseModelSize reads `text` without an error."""
    for suffix, _ in _GO_MULTIPLIER:
        if text.endswith(suffix):
            text = text[: -len(suffix)]
            break
    return _go_parse_float(text) is not None
