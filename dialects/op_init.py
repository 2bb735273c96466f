"""
A faster `__init__` for ops whose operands, results, regions and successors are each
exactly one (no variadic or optional definition, so no segment sizes): `init_op`
builds what `IRDLOperation.__init__` builds for them, without its general argument
lists, which cost 60% of making such an op (~30 us of ~55 us for a `spirv.IAdd`:
four `irdl_build_arg_list` calls, each an `isinstance` against `Sequence` per
argument). A compile makes thousands of ops (nbody's task: 1,300 in
convert-offload-to-spirv alone).

    class IAddOp(IRDLOperation):
        def __init__(self, a, b):
            init_op(self, operands=(a, b), result_types=(SSAValue.get(a).type,))

An op of any other shape, or one given regions or successors, goes through
`IRDLOperation.__init__` as before, so the op built is the same either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, OptionalDef, VariadicDef

_fixed: dict[type[IRDLOperation], tuple[int, int] | None] = {}
"""Per op class: (operands, results) when every definition is exactly one and the
class has no segment options; None otherwise."""


def _fixed_counts(cls: type[IRDLOperation]) -> tuple[int, int] | None:
    if cls in _fixed:
        return _fixed[cls]
    op_def = cls.get_irdl_definition()
    definitions = [*op_def.operands, *op_def.results, *op_def.regions, *op_def.successors]
    single = not op_def.options and not any(
        isinstance(d, VariadicDef | OptionalDef) for _, d in definitions
    )
    counts = (len(op_def.operands), len(op_def.results)) if single else None
    _fixed[cls] = counts
    return counts


def init_op(
    op: IRDLOperation,
    *,
    operands: Sequence[SSAValue | Operation] = (),
    result_types: Sequence[Attribute] = (),
    properties: Mapping[str, Attribute | None] | None = None,
    attributes: Mapping[str, Attribute | None] | None = None,
) -> None:
    """Initialise `op` as `IRDLOperation.__init__(op, operands=..., ...)` would (a None
    property or attribute is left out); the fast way when its class has exactly one of
    each operand and result definition (see the module docstring)."""
    counts = _fixed_counts(type(op))
    if counts is None or counts != (len(operands), len(result_types)):
        IRDLOperation.__init__(
            op,
            operands=list(operands),
            result_types=list(result_types),
            properties=properties,
            attributes=attributes,
        )
        return
    Operation.__init__(
        op,
        operands=[SSAValue.get(v) for v in operands],
        result_types=result_types,
        properties={k: v for k, v in properties.items() if v is not None}
        if properties
        else {},
        attributes={k: v for k, v in attributes.items() if v is not None}
        if attributes
        else {},
    )
