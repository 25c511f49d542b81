"""The version grammar (spec V1). Only parsing lives here: how two versions
match under an operator (V3–V9) is decided by the ASP encoding."""

from __future__ import annotations

from ome_asp.patterns import Pattern
from ome_asp.records import record

# A num has no leading zeros. The character class is spelled out because
# str.isdigit() would also accept non-ASCII digits.
_NUM = Pattern(r"0|[1-9][0-9]*")
_UINT64_MAX = 2**64 - 1
_UINT64_DIGITS = len(str(_UINT64_MAX))


@record(frozen=True)
class Version:
    """A version string as V1 reads it."""

    prefix: bool  # written with a leading lowercase "v"
    precision: int  # how many numbers were written: 1, 2 or 3
    major: int
    minor: int  # 0 when not written
    patch: int  # 0 when not written
    pre: tuple[str, ...] = ()
    build: tuple[str, ...] = ()
    dev: tuple[str, ...] = ()

    @property
    def suffixed(self) -> bool:
        """V1: any PRE, BUILD or DEV component makes a version suffixed (V6)."""
        return bool(self.pre or self.build or self.dev)


def _num(text: str) -> int | None:
    # More digits than 2**64 - 1 has cannot fit; checking first also keeps
    # int() away from Python's limit on converting long digit strings.
    if len(text) > _UINT64_DIGITS or _NUM.fullmatch(text) is None:
        return None
    value = int(text)
    return value if value <= _UINT64_MAX else None


def _split_off(text: str, mark: str) -> tuple[str, tuple[str, ...] | None]:
    """Cut `text` at the first `mark`: what is left, and the remainder split on
    "." (() when there is no mark, None when a component is empty)."""
    left, found, rest = text.partition(mark)
    if not found:
        return text, ()
    parts = tuple(rest.split("."))
    return left, (parts if all(parts) else None)


def parse_version(text: str) -> Version | None:
    """Parse a version string by V1; None when it does not parse (V2)."""
    prefix = text.startswith("v")
    numbers = (text[1:] if prefix else text).split(".", 2)
    patchpart = numbers[2] if len(numbers) == 3 else None
    # V1's patchpart, in its order: BUILD from the first "+", then PRE from the
    # first "-", then DEV from the first "."; what is left is the patch.
    build = pre = dev = ()
    if patchpart is not None:
        patchpart, build = _split_off(patchpart, "+")
        patchpart, pre = _split_off(patchpart, "-")
        patchpart, dev = _split_off(patchpart, ".")
        if build is None or pre is None or dev is None:
            return None
        numbers[2] = patchpart
    values = [_num(n) for n in numbers]
    if None in values:
        return None
    major, minor, patch = values + [0] * (3 - len(values))
    return Version(prefix, len(values), major, minor, patch, pre, build, dev)
