"""
Structs: `ti.types.struct(...)`, `ti.Struct.field({...}, shape)`, `@ti.dataclass`.

A struct field is stored member by member (one field per member, a vector member a
Vector.field), so the compiler sees only scalar and vector fields. Inside kernels a
struct value is a dict of member values (`StructVal`); a local struct variable is a
dict of member places (`StructPlace`), as is an element of a struct field.

    Particle = ti.types.struct(pos=ti.math.vec3, mass=ti.f32)
    ps = Particle.field(shape=n)          # ps.pos: Vector.field(3), ps.mass: field
    @ti.kernel
    def k():
        for i in ps:
            ps[i].pos += ps[i].mass * g
"""

from __future__ import annotations

import inspect
from functools import partial
from typing import Any

from taichi_xdsl.utils.errors import TaichiError, TaichiSyntaxError

from .matrix import Aggregate


class StructType:
    """A struct type: named members, each a primitive or vector/matrix type."""

    def __init__(
        self,
        members: dict[str, Any],
        methods: dict[str, Any] | None = None,
        py_methods: dict[str, Any] | None = None,
    ):
        from .argpack import ArgPackType

        for t in members.values():
            if isinstance(t, ArgPackType):  # a pack groups kernel arguments only
                raise ValueError(f"Invalid data type {t!r}")
        self.members = dict(members)
        self.methods = dict(methods or {})  # ti.func methods, for kernels
        self.py_methods = dict(py_methods or {})  # plain methods, for Python scope
        self.name = "Struct"

    def _value(self, values: dict[str, Any]) -> Struct:
        """A Python-scope value of this type (its plain methods callable on it)."""
        s = Struct(values)
        object.__setattr__(s, "_stype", self)
        return s

    def __call__(self, *args: Any, **kwargs: Any) -> Struct:
        if (
            len(args) == 1
            and not kwargs
            and isinstance(args[0], dict)
            and set(args[0]) <= set(self.members)
        ):
            values = dict(args[0])  # Particle({"pos": ..., "mass": ...})
        else:
            values = dict(zip(self.members, args))
            values.update(kwargs)
        unknown = set(values) - set(self.members)
        if unknown:
            raise TaichiError(f"{self.name} has no member(s) {sorted(unknown)}")
        return self._value({k: _convert(self.members[k], values.get(k, 0)) for k in self.members})

    def field(self, shape: Any = None, name: str = "", **kwargs: Any) -> StructField:
        """A field of this struct (member by member)."""
        from .field import field

        fields = {
            m: (t.field if isinstance(t, StructType) else partial(field, t))(
                shape=shape, name=f"{name or self.name}_{m}", **kwargs
            )
            for m, t in self.members.items()
        }  # a struct member is a struct field of its own
        return StructField(self, fields)

    def __repr__(self) -> str:
        return (
            f"ti.types.struct({', '.join(f'{k}={v!r}' for k, v in self.members.items())})"
        )


def _convert(t: Any, value: Any) -> Any:
    """A Python-scope member value converted to its member type (2.5 -> 2 for int)."""
    from . import program as _program
    from .dtypes import cook_dtype
    from .matrix import MatrixType

    if isinstance(t, StructType):  # from a dict of members, or a first member (t(1))
        if isinstance(value, dict) and set(value) <= set(t.members):
            return t(dict(value))
        return t(value)
    if isinstance(t, MatrixType):
        return t(value)
    try:
        cfg = _program.get_program().config
        dt = cook_dtype(t, cfg.default_ip, cfg.default_fp)
    except (TypeError, ValueError):
        return value
    if isinstance(value, int | float | bool):
        return float(value) if dt.is_float else int(value)
    return value


class StructField:
    """A field of structs: one field per member, `sf.member` is that field."""

    def __init__(self, stype: StructType, fields: dict[str, Any]):
        self.stype = stype
        self.fields = fields

    def leaf(self) -> Any:
        """A field of scalars/vectors among the members (members of members too): the
        index space of the whole struct field."""
        first = next(iter(self.fields.values()))
        return first.leaf() if isinstance(first, StructField) else first

    def __getattr__(self, name: str) -> Any:
        fields = self.__dict__.get("fields", {})
        if name in fields:
            return fields[name]
        raise AttributeError(name)

    @property
    def shape(self) -> tuple[int, ...]:
        return next(iter(self.fields.values())).shape

    def parent(self, n: int = 1) -> Any:
        """The SNode `n` levels above the members (`x.parent()`: their container)."""
        return next(iter(self.fields.values())).parent(n)

    def __getitem__(self, key: Any) -> Struct:
        """The element at `key`: its members read as attributes or items; assigning a
        member (`sf[i].mass = 2`) writes the field."""
        return _FieldElement(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        for m, v in value.items():
            self.fields[m][key] = v

    def to_numpy(self) -> dict[str, Any]:
        return {m: f.to_numpy() for m, f in self.fields.items()}

    def from_numpy(self, data: dict[str, Any]) -> None:
        for m, v in data.items():
            self.fields[m].from_numpy(v)

    def fill(self, value: Any) -> None:
        for f in self.fields.values():
            f.fill(value)

    def copy_from(self, other: StructField) -> None:
        """Copy every member of another struct field of the same type and shape."""
        if not isinstance(other, StructField) or other.fields.keys() != self.fields.keys():
            raise TypeError(
                "copy_from takes a struct field with the same members, got "
                f"{type(other).__name__}"
            )
        for m, f in self.fields.items():
            f.copy_from(other.fields[m])


class StructVal(Aggregate):
    """A struct value in a kernel: member name -> value."""

    def __init__(self, stype: StructType, values: dict[str, Any]):
        self.stype = stype
        self.values = values


class StructPlace(Aggregate):
    """A struct variable or struct-field element in a kernel: member name -> place."""

    def __init__(self, stype: StructType, places: dict[str, Any]):
        self.stype = stype
        self.places = places


def struct(**members: Any) -> StructType:
    """`ti.types.struct(a=ti.f32, v=ti.math.vec2)`."""
    return StructType(members)


class Struct(dict):
    """
    A struct value in Python scope: a dict of member values whose members are also
    attributes (`s.pos`, `s["pos"]`). `ti.Struct(a=1, b=ti.Vector([...]))`,
    `ti.Struct({"a": 1})`; `ti.Struct.field({"a": ti.f32, ...}, shape=n)` makes a field.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            stype = self.__dict__.get("_stype")
            if stype is not None and name in stype.py_methods:  # a @ti.dataclass method
                return stype.py_methods[name].__get__(self)
            raise AttributeError(f"the struct has no member '{name}'") from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self:
            raise AttributeError(f"the struct has no member '{name}'")
        self[name] = value

    @property
    def keys_(self) -> list[str]:
        return list(self.keys())

    def to_dict(self) -> dict[str, Any]:
        """The members as a plain dict (nested structs too)."""
        return {k: v.to_dict() if isinstance(v, Struct) else v for k, v in self.items()}

    @staticmethod
    def field(
        members: dict[str, Any], shape: Any = None, name: str = "", **kw: Any
    ) -> StructField:
        return StructType(members).field(shape=shape, name=name, **kw)


class _FieldElement(Struct):
    """`sf[i]` of a struct field: the member values, and writes that reach the field."""

    def __init__(self, sf: StructField, key: Any):
        super().__init__({m: f[key] for m, f in sf.fields.items()})
        object.__setattr__(self, "_sf", sf)
        object.__setattr__(self, "_key", key)

    def __setitem__(self, name: str, value: Any) -> None:
        sf = object.__getattribute__(self, "_sf")
        if name not in sf.fields:
            raise AttributeError(f"the struct has no member '{name}'")
        sf.fields[name][object.__getattribute__(self, "_key")] = value
        dict.__setitem__(self, name, sf.fields[name][object.__getattribute__(self, "_key")])


def dataclass(cls: type) -> StructType:
    """`@ti.dataclass`: a struct type from a class's annotations; ti.func methods."""
    from .kernel import Func

    annotations = dict(getattr(cls, "__annotations__", {}))
    if any(name in vars(cls) for name in annotations):  # `b: float = 3.14`
        raise TaichiSyntaxError("Default value in @dataclass is not supported.")
    methods = {k: v for k, v in vars(cls).items() if isinstance(v, Func)}
    py_methods = {
        k: v
        for k, v in vars(cls).items()
        if inspect.isfunction(v) and not (k.startswith("__") and k.endswith("__"))
    }
    st = StructType(annotations, methods, py_methods)
    st.name = cls.__name__
    return st


__all__ = [
    "Struct",
    "StructField",
    "StructPlace",
    "StructType",
    "StructVal",
    "dataclass",
    "struct",
]
