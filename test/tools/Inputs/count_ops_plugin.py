"""A researcher's pass, loaded with `ti-opt --pass-plugin`: tags each kernel with its op count."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass

from taichi_xdsl.dialects import taichi


@dataclass(frozen=True)
class CountOpsPass(ModulePass):
    name = "count-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in op.walk():
            if isinstance(kernel, taichi.KernelOp):
                count = sum(1 for _ in kernel.walk()) - 1
                kernel.attributes["op_count"] = IntegerAttr(count, i64)
