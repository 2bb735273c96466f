"""
Argument packs: `ti.types.argpack(...)`, a named group of kernel parameters passed as one
argument.

    Pack = ti.types.argpack(n=ti.i32, arr=ti.types.ndarray(dtype=ti.math.vec3, ndim=2))
    @ti.kernel
    def k(p: Pack) -> ti.f32:
        return p.arr[0, p.n][1]
    k(Pack(n=2, arr=a))

A member is anything a kernel parameter may be (a scalar, vector, matrix or struct type,
an ndarray annotation, another argpack). The kernel sees a pack as its members, each a
parameter of its own (kernel.py flattens it; the code generator regroups the members
under the pack's name). A pack is never a return value nor a struct member (Taichi's
rules).
"""

from __future__ import annotations

from typing import Any

from taichi_xdsl.utils.errors import TaichiTypeError


class ArgPackType:
    """`ti.types.argpack(a=ti.i32, arr=ti.types.ndarray(...))`: the type of a pack."""

    def __init__(self, **members: Any):
        self.members = dict(members)

    def __call__(self, *args: Any, **kwargs: Any) -> ArgPack:
        values = dict(zip(self.members, args))
        values.update(kwargs)
        unknown = set(values) - set(self.members)
        if unknown:
            raise TaichiTypeError(f"{self!r} has no member(s) {sorted(unknown)}")
        missing = [m for m in self.members if m not in values]
        if missing:
            raise TaichiTypeError(f"{self!r}: no value for member(s) {missing}")
        return ArgPack(self, {m: values[m] for m in self.members})

    def __repr__(self) -> str:
        return f"<ti.ArgPackType {', '.join(f'{m}={_type_name(t)}' for m, t in self.members.items())}>"


def _type_name(t: Any) -> str:
    from .dtypes import cook_dtype, f32, i32

    try:
        return str(cook_dtype(t, i32, f32))
    except (TypeError, ValueError):
        return repr(t)


class ArgPack:
    """A value of an ArgPackType: its members by name (`pack.a`)."""

    def __init__(self, pack_type: ArgPackType, values: dict[str, Any]):
        self.pack_type = pack_type
        self._values = values

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values", {})
        if name in values:
            return values[name]
        raise AttributeError(f"the argpack has no member '{name}'")

    def __repr__(self) -> str:
        return f"ArgPack({', '.join(f'{m}={v!r}' for m, v in self._values.items())})"


def flatten_pack(name: str, pack_type: ArgPackType, value: Any, out: list[Any]) -> None:
    """Append the member values of `value`, an argument for a pack parameter, in the
    order of the flattened parameters (a member pack's members in place)."""
    if not isinstance(value, ArgPack) or value.pack_type is not pack_type:
        raise TaichiTypeError(
            f"kernel argument '{name}' must be a value of {pack_type!r} "
            f"(made by calling the type), got {type(value).__name__}"
        )
    for m, t in pack_type.members.items():
        member = value._values[m]
        if isinstance(t, ArgPackType):
            flatten_pack(f"{name}.{m}", t, member, out)
        else:
            out.append(member)
