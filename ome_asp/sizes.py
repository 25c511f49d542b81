"""Parameter-count sizes (spec Z1, Z2), computed exactly (I8, OQ-16).

No float ever touches a size: `0.5B`, `.5B` and `500M` are the same Fraction
by construction, and counts beyond 2**53 stay exact.
"""

from __future__ import annotations

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
