# RUN: %python %s | filecheck %s
# Integer semantics are chosen by the frontend from Taichi types (the IR is signless):
# floor division and modulo of signed ints get a sign correction, unsigned ones use
# divui/remui, `/` converts to default_fp, and mixed widths are promoted.

import taichi_xdsl as ti

ti.init(arch=ti.cpu)


@ti.kernel
def floordiv(a: ti.i32, b: ti.i32) -> ti.i32:
    return a // b


@ti.kernel
def modulo(a: ti.i32, b: ti.i32) -> ti.i32:
    return a % b


@ti.kernel
def mod_const(a: ti.i32) -> ti.i32:
    return a % 4


@ti.kernel
def unsigned_ops(a: ti.u32, b: ti.u32) -> ti.u32:
    return (a // b) + (a % b) + (a >> 3) + ti.cast(a < b, ti.u32)


@ti.kernel
def true_div(a: ti.i32, b: ti.i64) -> ti.f32:
    return a / b


@ti.kernel
def promote(a: ti.i8, b: ti.u8, c: ti.i64) -> ti.i64:
    return a + b + c


print(floordiv.get_ir(1, 1))
print(modulo.get_ir(1, 1))
print(mod_const.get_ir(1))
print(unsigned_ops.get_ir(1, 1))
print(true_div.get_ir(1, 1))
print(promote.get_ir(1, 1, 1))

# q = a / b (truncating); subtract 1 when the remainder is nonzero and has the sign
# opposite to b.
# CHECK-LABEL: taichi.kernel @floordiv
# CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
# CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[A]], %[[B]] : i32
# CHECK-NEXT:    %[[R:.*]] = arith.remsi %[[A]], %[[B]] : i32
# CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
# CHECK-NEXT:    %[[NZ:.*]] = arith.cmpi ne, %[[R]], %[[Z]] : i32
# CHECK-NEXT:    %[[X:.*]] = arith.xori %[[R]], %[[B]] : i32
# CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[X]], %[[Z]] : i32
# CHECK-NEXT:    %[[FIX:.*]] = arith.andi %[[NZ]], %[[NEG]] : i1
# CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
# CHECK-NEXT:    %[[QM1:.*]] = arith.subi %[[Q]], %[[ONE]] : i32
# CHECK-NEXT:    %[[RES:.*]] = arith.select %[[FIX]], %[[QM1]], %[[Q]] : i32
# CHECK-NEXT:    taichi.return %[[RES]] : i32

# CHECK-LABEL: taichi.kernel @modulo
# CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
# CHECK-NEXT:    %[[R:.*]] = arith.remsi %[[A]], %[[B]] : i32
# CHECK:         %[[FIX:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
# CHECK-NEXT:    %[[RB:.*]] = arith.addi %[[R]], %[[B]] : i32
# CHECK-NEXT:    %[[RES:.*]] = arith.select %[[FIX]], %[[RB]], %[[R]] : i32
# CHECK-NEXT:    taichi.return %[[RES]] : i32

# A positive constant divisor: only a negative remainder needs the fix.
# CHECK-LABEL: taichi.kernel @mod_const
# CHECK-SAME:    (%[[A:.*]]: i32) -> i32 {
# CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4 : i32
# CHECK-NEXT:    %[[R:.*]] = arith.remsi %[[A]], %[[FOUR]] : i32
# CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
# CHECK-NEXT:    %[[NEG:.*]] = arith.cmpi slt, %[[R]], %[[Z]] : i32
# CHECK-NEXT:    %[[RB:.*]] = arith.addi %[[R]], %[[FOUR]] : i32
# CHECK-NEXT:    %[[RES:.*]] = arith.select %[[NEG]], %[[RB]], %[[R]] : i32
# CHECK-NEXT:    taichi.return %[[RES]] : i32

# CHECK-LABEL: taichi.kernel @unsigned_ops
# CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32 {
# CHECK-NEXT:    %{{.*}} = arith.divui %[[A]], %[[B]] : i32
# CHECK-NEXT:    %{{.*}} = arith.remui %[[A]], %[[B]] : i32
# CHECK:         %{{.*}} = arith.shrui %[[A]], %{{.*}} : i32
# CHECK:         %[[LT:.*]] = arith.cmpi ult, %[[A]], %[[B]] : i32
# CHECK-NEXT:    %{{.*}} = arith.extui %[[LT]] : i1 to i32

# CHECK-LABEL: taichi.kernel @true_div
# CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i64) -> f32 {
# CHECK-NEXT:    %[[FA:.*]] = arith.sitofp %[[A]] : i32 to f32
# CHECK-NEXT:    %[[FB:.*]] = arith.sitofp %[[B]] : i64 to f32
# CHECK-NEXT:    %[[Q:.*]] = arith.divf %[[FA]], %[[FB]] : f32
# CHECK-NEXT:    taichi.return %[[Q]] : f32

# i8 + u8 -> u8 (same width: unsigned wins); u8 + i64 -> i64 (zero-extended).
# CHECK-LABEL: taichi.kernel @promote
# CHECK-SAME:    (%[[A:.*]]: i8, %[[B:.*]]: i8, %[[C:.*]]: i64) -> i64 {
# CHECK-NEXT:    %[[AB:.*]] = arith.addi %[[A]], %[[B]] : i8
# CHECK-NEXT:    %[[W:.*]] = arith.extui %[[AB]] : i8 to i64
# CHECK-NEXT:    %[[S:.*]] = arith.addi %[[W]], %[[C]] : i64
# CHECK-NEXT:    taichi.return %[[S]] : i64
