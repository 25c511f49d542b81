"""Value classes without the dataclasses module's cost at start-up (D-135).

`@record` (and `@record(frozen=True)`) gives a class what `@dataclass` gave
ome-asp's classes: an __init__ taking the annotated fields in order (with
their defaults and `field(default=..., default_factory=..., compare=...,
repr=...)`), calling `__post_init__` if the class has one; __repr__; __eq__
over the compared fields, with another class NotImplemented; __hash__ over
them when frozen, none (unhashable) otherwise; and with `frozen`, attributes
that refuse assignment. `replace` and `fields` stand for dataclasses.replace
and dataclasses.fields. What it leaves out, ome-asp does not use: ordering,
inherited fields, ClassVar, InitVar, slots, keyword-only fields.

Why not dataclasses: `@dataclass` compiles five or six methods per class from
source when the module is imported (about 4 M instructions a class) and
imports `inspect`, `ast` and `dis` (about 22 M), which on the explain path
was more than half of the start-up (issue 26, item 5); here a class costs
a few closures.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:  # mypy checks the classes' constructors as dataclasses' (PEP 681)
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_: Any) -> Callable:
        return lambda function: function

T = TypeVar("T")
_MISSING: Any = object()
_set = object.__setattr__  # frozen records refuse setattr


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record."""


class Field:
    """One field of a record (`fields` gives them in order)."""

    __slots__ = ("name", "default", "default_factory", "compare", "repr")

    def __init__(self, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None,
                 compare: bool = True, repr: bool = True) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr


def field(*, default: Any = _MISSING, default_factory: Callable[[], Any] | None = None,
          compare: bool = True, repr: bool = True) -> Any:
    return Field(default, default_factory, compare, repr)


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field,))
def record(cls: type | None = None, /, *, frozen: bool = False) -> Any:
    if cls is None:
        return lambda cls: _build(cls, frozen)
    return _build(cls, frozen)


def fields(obj: object) -> tuple[Field, ...]:
    """The fields of a record or record class, in order."""
    return obj.__record_fields__  # type: ignore[attr-defined]


def is_record(obj: object) -> bool:
    return hasattr(obj, "__record_fields__")


def replace(obj: T, /, **changes: Any) -> T:
    """A new record like `obj` with `changes` (its __post_init__ runs again)."""
    values = {f.name: getattr(obj, f.name) for f in fields(obj)}
    values.update(changes)
    return type(obj)(**values)


def _build(cls: type, frozen: bool) -> type:
    specs = []
    for name in cls.__dict__.get("__annotations__", {}):
        spec = cls.__dict__.get(name, _MISSING)
        if not isinstance(spec, Field):
            spec = Field(spec)
        spec.name = name
        if spec.default is _MISSING:  # as with dataclasses: a class attribute only for a plain default
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, spec.default)
        specs.append(spec)
    names = tuple(s.name for s in specs)
    # every field, in order, with its default (the order of each instance's __dict__)
    template = {s.name: s.default for s in specs}
    unset = tuple((s.name, s.default_factory) for s in specs if s.default is _MISSING)
    post_init = getattr(cls, "__post_init__", None)

    made = 0

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made
        made += 1
        if made == COMPILE_AFTER and (init := _compiled_init(cls, specs, post_init, frozen)) is not None:
            cls.__init__ = init  # type: ignore[misc]  # from the next instance on
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__}() takes {len(names)} arguments but {len(args)} were given")
        values = dict(template)
        values.update(zip(names, args))
        if kwargs:
            if not kwargs.keys() <= template.keys() or not kwargs.keys().isdisjoint(names[:len(args)]):
                raise TypeError(f"{cls.__name__}() got unexpected or repeated arguments: {sorted(kwargs)}")
            values.update(kwargs)
        for name, factory in unset:
            if values[name] is _MISSING:
                if factory is None:
                    raise TypeError(f"{cls.__name__}() missing argument: {name!r}")
                values[name] = factory()
        # One attribute at a time, as a dataclass's __init__ assigns: the
        # instances keep one shared key table and their values inline. A
        # dict given whole (`self.__dict__.update`) made each instance its
        # own dict, about twice the bytes per record (peak 325 vs 288 MB at 100 x 5,000, G5, D-159).
        for name, value in values.items():
            _set(self, name, value)
        if post_init is not None:
            post_init(self)

    shown = tuple(s.name for s in specs if s.repr)

    def __repr__(self: Any) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    key = _values(tuple(s.name for s in specs if s.compare))

    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    methods: dict[str, Any] = {"__init__": __init__, "__repr__": __repr__, "__eq__": __eq__}
    if frozen:
        def __setattr__(self: Any, name: str, value: Any) -> None:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")

        def __delattr__(self: Any, name: str) -> None:
            raise FrozenInstanceError(f"cannot delete field {name!r}")

        def __hash__(self: Any) -> int:
            return hash(key(self))

        methods.update(__setattr__=__setattr__, __delattr__=__delattr__, __hash__=__hash__)
    for name, method in methods.items():
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    if not frozen:
        cls.__hash__ = None  # type: ignore[assignment]  # as with dataclasses: equal by value, so unhashable
    cls.__record_fields__ = tuple(specs)  # type: ignore[attr-defined]
    return cls


# A class that makes this many instances (serve's, check's, a batch's: the
# loader and the facts make about a hundred records per serve request) gets
# an __init__ written for its fields, as dataclasses writes one: a third of
# the generic one's instructions (issue 26, D-148). Compiling costs about
# 540 k instructions, as much as ~60 instances save, so a command that makes
# few of a class, as one explain of a small cluster does, never compiles it.
COMPILE_AFTER = 500


def _compiled_init(cls: type, specs: list[Field], post_init: Callable | None, frozen: bool) -> Callable | None:
    """`__init__(self, <field>=<default>, ...)` of the class's fields, in
    order: the generic one's values, defaults, factories and __post_init__,
    Python's own messages for a bad call. None when a field without a
    default follows one with a default (no Python signature has that)."""
    defaulted = [s.default is not _MISSING or s.default_factory is not None for s in specs]
    if any(before and not after for before, after in zip(defaulted, defaulted[1:])):
        return None
    namespace: dict[str, Any] = {"_MISSING": _MISSING, "_set": _set, "_post_init": post_init}
    parameters, lines = [], []
    for k, spec in enumerate(specs):
        if spec.default is not _MISSING:
            namespace[f"_default_{k}"] = spec.default
            parameters.append(f"{spec.name}=_default_{k}")
        elif spec.default_factory is not None:
            namespace[f"_factory_{k}"] = spec.default_factory
            parameters.append(f"{spec.name}=_MISSING")
            lines.append(f"    if {spec.name} is _MISSING:\n        {spec.name} = _factory_{k}()\n")
        else:
            parameters.append(spec.name)
    # One by one, as the generic one (D-159); a record that is not frozen by
    # assignment, as dataclasses writes it: object.__setattr__ is a call per
    # field, about three times the time (a Verdict per explain row, D-165).
    lines += [f"    _set(self, {spec.name!r}, {spec.name})\n" if frozen else f"    self.{spec.name} = {spec.name}\n"
              for spec in specs]
    if post_init is not None:
        lines.append("    _post_init(self)\n")
    source = f"def __init__(self, {', '.join(parameters)}):\n{''.join(lines)}"
    exec(compile(source, f"<record {cls.__qualname__}>", "exec"), namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """The tuple of an object's attributes `names` (attrgetter gives one name's value bare)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    return lambda obj: tuple(getattr(obj, n) for n in names)
