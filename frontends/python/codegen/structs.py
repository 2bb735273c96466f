"""
Struct values and places inside kernels: a struct field's element, a local struct
variable, `Particle(pos=..., mass=...)` and member access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taichi_xdsl.utils.errors import TaichiError

from ..lang.struct import StructField, StructPlace, StructType, StructVal

if TYPE_CHECKING:
    from .visitor import KernelCodegen



def struct_element(
    cg: KernelCodegen, sf: StructField, index: Any, node: Any, write: bool = False
) -> StructPlace:
    places = {
        m: struct_element(cg, f, index, node, write)
        if isinstance(f, StructField)
        else cg.element(cg.field_handle(f), index, node, write)
        for m, f in sf.fields.items()
    }
    from .sparse import DynamicList

    lists = [p for p in places.values() if isinstance(p, DynamicList)]
    if lists:  # x[i] of a struct field in a dynamic SNode: one list of structs
        ref = DynamicList(lists[0].snode, sf.fields, lists[0].lengths)
        ref.cg = cg
        return ref
    return StructPlace(sf.stype, places)

def load_struct(cg: KernelCodegen, place: StructPlace) -> StructVal:
    return StructVal(place.stype, {m: cg.rvalue(p) for m, p in place.places.items()})

def make_struct(
    cg: KernelCodegen, stype: StructType, args: list[Any], kwargs: dict[str, Any], node: Any
) -> StructVal:
    values = dict(zip(stype.members, args))
    values.update(kwargs)
    out = {}
    for m, t in stype.members.items():
        v = values.get(m, 0)
        out[m] = cg.convert_to_type(t, v, node)
    return StructVal(stype, out)

def struct_from_values(cg: KernelCodegen, members: dict[str, Any], node: Any) -> StructVal:
    """`ti.Struct(a=1, v=ti.Vector([...]))` / `ti.Struct({"a": ...})` in a kernel: a struct
    whose member types are those of the values (a dict member is a nested struct)."""
    from ..lang.matrix import MatrixType
    from .vectors import Vec

    types, values = {}, {}
    for m, v in members.items():
        if isinstance(v, StructPlace):
            v = load_struct(cg, v)
        elif isinstance(v, dict):
            v = struct_from_values(cg, v, node)
        else:
            v = cg.rvalue(v)
            vec = cg.as_vec(v) if not isinstance(v, StructVal) else None
            if vec is not None and not isinstance(v, int | float):
                v = vec
        if isinstance(v, StructVal):
            types[m] = v.stype
        elif isinstance(v, Vec):
            shape = v.shape
            dt = cg.vec_dtype(v)
            types[m] = MatrixType(shape[0], shape[1] if len(shape) == 2 else None, dt)
        elif isinstance(v, int | float | bool):
            types[m] = cg.em.literal_dtype(v)
        elif hasattr(v, "dtype"):
            types[m] = v.dtype
        else:
            raise TaichiError(f"ti.Struct member '{m}' cannot hold {type(v).__name__}")
        values[m] = v
    return StructVal(StructType(types), values)

def new_struct_local(
    cg: KernelCodegen, name: str | None, value: StructVal
) -> StructPlace:
    places = {}
    for m, v in value.values.items():
        t = value.stype.members[m]
        v = cg.convert_to_type(t, v, None)
        if isinstance(v, StructVal):
            places[m] = new_struct_local(cg, None, v)
        elif hasattr(v, "elems"):
            places[m] = cg.new_vec_local(f"{name}_{m}" if name else None, v)
        else:
            places[m] = cg.new_local(f"{name}_{m}" if name else None, v)
    return StructPlace(value.stype, places)

def store_struct(cg: KernelCodegen, place: StructPlace, value: Any, node: Any) -> None:
    if isinstance(value, StructPlace):
        value = load_struct(cg, value)
    if isinstance(value, dict):
        value = StructVal(place.stype, value)
    if not isinstance(value, StructVal):
        raise TaichiError(f"cannot store {type(value).__name__} into a struct")
    for m, p in place.places.items():
        if m in value.values:
            cg.store(p, value.values[m], node)

def struct_attr(
    cg: KernelCodegen, obj: StructVal | StructPlace, name: str, node: Any
) -> Any:
    if name in obj.stype.methods:
        from ..lang.kernel import BoundFunc

        return BoundFunc(obj.stype.methods[name], obj)
    if isinstance(obj, StructPlace):
        if name in obj.places:
            return cg.rvalue(obj.places[name])
    elif name in obj.values:
        return obj.values[name]
    raise TaichiError(f"struct {obj.stype.name} has no member '{name}'")
