"""metadata.creationTimestamp as OME's Go code decodes it (issue 17).

apimachinery's metav1.Time.UnmarshalJSON reads a JSON null as Go's zero time
and a string with `time.Parse(time.RFC3339, s)`, nothing else; any other
form is a decode error, so ome-asp rejects it under every profile (I4). The
instant is kept exact, in nanoseconds, as Go compares it (Time.Equal,
Time.After): never a local time, whatever TZ says -- a time without a zone
is an error, not a local time.

`time.Parse` tries a strict RFC 3339 reader first and, when that fails, its
general layout parser on "2006-01-02T15:04:05Z07:00"; what either accepts
is accepted, and the general parser accepts every string the strict one
does. Its rules, from Go 1.25's time/format.go (`parse`, `getnum`, `skip`,
`parseNanoseconds`), are spelt out in `parse_rfc3339`.
"""

from __future__ import annotations

_DIGITS = frozenset("0123456789")
_SECOND_NS = 10**9
_DAY_SECONDS = 86_400
_DAYS_IN_MONTH = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (any year, 0 included)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


#: Go's zero time, 0001-01-01T00:00:00Z: an absent or null creationTimestamp (D-31).
ZERO_TIME = 0
_ZERO_DAYS = _days_from_civil(1, 1, 1)


def _days_in(month: int, year: int) -> int:
    """time.daysIn: February has 29 days in a Gregorian leap year."""
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else _DAYS_IN_MONTH[month - 1]


def _number(text: str, fixed: bool) -> tuple[int, str] | None:
    """time.getnum: one or (if `fixed`, exactly) two leading digits."""
    if not text[:1] or text[0] not in _DIGITS:
        return None
    if len(text) < 2 or text[1] not in _DIGITS:
        return None if fixed else (int(text[0]), text[1:])
    return int(text[:2]), text[2:]


def parse_rfc3339(text: str) -> int | None:
    """The instant of `time.Parse(time.RFC3339, text)` in nanoseconds after
    Go's zero time, or None where Go returns an error. Accepted: a 4-digit
    year, `-`, a 2-digit month 1-12, `-`, a 2-digit day valid for the month,
    `T`, an hour of one or two digits 0-23, `:`, 2-digit minutes and seconds
    0-59, an optional fraction (`.` or `,` and digits; digits after the ninth
    are dropped, not rounded), then `Z` or a `+hh:mm`/`-hh:mm` offset (hours
    up to 24, minutes up to 60, as Go allows); nothing after it."""
    if not text.isascii():
        return None  # every accepted character is ASCII; Go reads bytes
    if len(text) < 4 or text[0] not in _DIGITS or not set(text[:4]) <= _DIGITS:
        return None
    year, rest = int(text[:4]), text[4:]
    fields = []
    for separator, fixed, low, high in (("-", True, 1, 12), ("-", True, 1, 31), ("T", False, 0, 23),
                                        (":", True, 0, 59), (":", True, 0, 59)):
        if not rest.startswith(separator):
            return None
        read = _number(rest[1:], fixed)
        if read is None or not low <= read[0] <= high:
            return None
        fields.append(read[0])
        rest = read[1]
    month, day, hour, minute, second = fields
    nanos = 0
    if len(rest) >= 2 and rest[0] in ".," and rest[1] in _DIGITS:
        end = 2
        while end < len(rest) and rest[end] in _DIGITS:
            end += 1
        digits = rest[1:min(end, 10)]  # parseNanoseconds reads at most nine digits
        nanos, rest = int(digits) * 10 ** (9 - len(digits)), rest[end:]
    if rest == "Z":
        offset = 0
    elif len(rest) == 6 and rest[0] in "+-" and rest[3] == ":":
        hours, minutes = _number(rest[1:3], True), _number(rest[4:6], True)
        if hours is None or minutes is None or hours[0] > 24 or minutes[0] > 60:
            return None
        offset = (hours[0] * 60 + minutes[0]) * 60 * (-1 if rest[0] == "-" else 1)
    else:
        return None  # no zone, another zone form (+0100, z), or extra text
    if day > _days_in(month, year):
        return None
    days = _days_from_civil(year, month, day) - _ZERO_DAYS
    return (days * _DAY_SECONDS + hour * 3600 + minute * 60 + second - offset) * _SECOND_NS + nanos
