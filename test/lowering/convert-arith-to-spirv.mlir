// RUN: ti-opt %s -p convert-arith-to-spirv | filecheck %s

// Binary ops map one to one; unsigned ops pick the unsigned SPIR-V op. A signed
// remainder is d - (d / b) * b: Vulkan leaves OpSRem undefined for negative operands.
// CHECK-LABEL: func.func @ints
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32
// CHECK-NEXT:    %[[S:.*]] = spirv.IAdd %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[M:.*]] = spirv.IMul %[[S]], %[[B]] : i32
// CHECK-NEXT:    %[[D:.*]] = spirv.UDiv %[[M]], %[[A]] : i32
// CHECK-NEXT:    %[[DQ:.*]] = spirv.SDiv %[[D]], %[[B]] : i32
// CHECK-NEXT:    %[[DP:.*]] = spirv.IMul %[[DQ]], %[[B]] : i32
// CHECK-NEXT:    %[[R:.*]] = spirv.ISub %[[D]], %[[DP]] : i32
// CHECK-NOT:     spirv.SRem
// CHECK-NEXT:    %[[C:.*]] = spirv.SLessThan %[[R]], %[[A]] : i32
// CHECK-NEXT:    %[[X:.*]] = spirv.Select %[[C]], %[[R]], %[[A]] : i1, i32
// CHECK-NEXT:    func.return %[[X]] : i32
func.func @ints(%a: i32, %b: i32) -> i32 {
  %s = arith.addi %a, %b : i32
  %m = arith.muli %s, %b : i32
  %d = arith.divui %m, %a : i32
  %r = arith.remsi %d, %b : i32
  %c = arith.cmpi slt, %r, %a : i32
  %x = arith.select %c, %r, %a : i32
  func.return %x : i32
}

// Python's floor division: one less than SDiv when the remainder is non-zero and its
// sign differs from the divisor's.
// CHECK-LABEL: func.func @floordiv
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32) -> i32
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[Q:.*]] = spirv.SDiv %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[QB:.*]] = spirv.IMul %[[Q]], %[[B]] : i32
// CHECK-NEXT:    %[[R:.*]] = spirv.ISub %[[A]], %[[QB]] : i32
// CHECK-NEXT:    %[[NZ:.*]] = spirv.INotEqual %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[RN:.*]] = spirv.SLessThan %[[R]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[BN:.*]] = spirv.SLessThan %[[B]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[DIFF:.*]] = spirv.LogicalNotEqual %[[RN]], %[[BN]] : i1
// CHECK-NEXT:    %[[ADJ:.*]] = spirv.LogicalAnd %[[NZ]], %[[DIFF]] : i1
// CHECK-NEXT:    %[[Q1:.*]] = spirv.ISub %[[Q]], %[[ONE]] : i32
// CHECK-NEXT:    %[[F:.*]] = spirv.Select %[[ADJ]], %[[Q1]], %[[Q]] : i1, i32
// CHECK-NEXT:    func.return %[[F]] : i32
func.func @floordiv(%a: i32, %b: i32) -> i32 {
  %q = arith.floordivsi %a, %b : i32
  func.return %q : i32
}

// Floats, conversions and GLSL.std.450 (an f32 sin; f64 widened after it).
// CHECK-LABEL: func.func @floats
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f64, %[[I:.*]]: i32) -> f64
// CHECK-NEXT:    %[[F:.*]] = spirv.ConvertSToF %[[I]] : i32 to f32
// CHECK-NEXT:    %[[P:.*]] = spirv.FMul %[[X]], %[[F]] : f32
// CHECK-NEXT:    %[[Q:.*]] = spirv.GL.Sqrt %[[P]] : f32
// CHECK-NEXT:    %[[S:.*]] = spirv.GL.Sin %[[Q]] : f32
// CHECK-NEXT:    %[[W:.*]] = spirv.FConvert %[[S]] : f32 to f64
// CHECK-NEXT:    %[[T:.*]] = spirv.FAdd %[[W]], %[[Y]] : f64
// CHECK-NEXT:    %[[LT:.*]] = spirv.FOrdLessThan %[[T]], %[[Y]] : f64
// CHECK-NEXT:    %[[NEG:.*]] = spirv.FNegate %[[T]] : f64
// CHECK-NEXT:    %[[R:.*]] = spirv.Select %[[LT]], %[[NEG]], %[[T]] : i1, f64
// CHECK-NEXT:    func.return %[[R]] : f64
func.func @floats(%x: f32, %y: f64, %i: i32) -> f64 {
  %f = arith.sitofp %i : i32 to f32
  %p = arith.mulf %x, %f : f32
  %q = math.sqrt %p : f32
  %s = math.sin %q : f32
  %w = arith.extf %s : f32 to f64
  %t = arith.addf %w, %y : f64
  %lt = arith.cmpf olt, %t, %y : f64
  %neg = arith.negf %t : f64
  %r = arith.select %lt, %neg, %t : f64
  func.return %r : f64
}

// ord and uno have no SPIR-V compare: either operand NaN, via IsNan; `ord` is its
// negation, `uno` is it as it is.
// CHECK-LABEL: func.func @ordered
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f32) -> (i1, i1)
// CHECK-NEXT:    %[[XN:.*]] = spirv.IsNan %[[X]] : f32
// CHECK-NEXT:    %[[YN:.*]] = spirv.IsNan %[[Y]] : f32
// CHECK-NEXT:    %[[EITHER:.*]] = spirv.LogicalOr %[[XN]], %[[YN]] : i1
// CHECK-NEXT:    %[[ORD:.*]] = spirv.LogicalNot %[[EITHER]] : i1
// CHECK-NEXT:    %[[XN2:.*]] = spirv.IsNan %[[X]] : f32
// CHECK-NEXT:    %[[YN2:.*]] = spirv.IsNan %[[Y]] : f32
// CHECK-NEXT:    %[[UNO:.*]] = spirv.LogicalOr %[[XN2]], %[[YN2]] : i1
// CHECK-NEXT:    func.return %[[ORD]], %[[UNO]] : i1, i1
func.func @ordered(%x: f32, %y: f32) -> (i1, i1) {
  %o = arith.cmpf ord, %x, %y : f32
  %u = arith.cmpf uno, %x, %y : f32
  func.return %o, %u : i1, i1
}

// An op marked no_contraction (by ti-expand-f64-math) keeps the mark on its SPIR-V op,
// which the serializer turns into the NoContraction decoration.
// CHECK-LABEL: func.func @exact
// CHECK-NEXT:    %[[S:.*]] = spirv.FAdd %{{.*}}, %{{.*}} {no_contraction} : f64
// CHECK-NEXT:    %[[D:.*]] = spirv.FSub %[[S]], %{{.*}} : f64
func.func @exact(%a: f64, %b: f64) -> f64 {
  %s = arith.addf %a, %b {no_contraction} : f64
  %d = arith.subf %s, %a : f64
  func.return %d : f64
}

// Booleans use the logical ops; widening an i1 is a select.
// CHECK-LABEL: func.func @bools
// CHECK-SAME:    (%[[A:.*]]: i1, %[[B:.*]]: i1) -> i32
// CHECK-NEXT:    %[[X:.*]] = spirv.LogicalNotEqual %[[A]], %[[B]] : i1
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[W:.*]] = spirv.Select %[[X]], %[[ONE]], %[[ZERO]] : i1, i32
// CHECK-NEXT:    func.return %[[W]] : i32
func.func @bools(%a: i1, %b: i1) -> i32 {
  %x = arith.xori %a, %b : i1
  %w = arith.extui %x : i1 to i32
  func.return %w : i32
}

// Index values (ndarray shapes) and the constants at the top of an offload.kernel
// (a range_for's bounds) are left alone; the task body is converted.
// CHECK-LABEL: offload.kernel @bounds
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 8 : i32
// CHECK-NEXT:    offload.range_for %[[I:.*]] = %[[LO]] to %[[HI]] : i32 {
// CHECK-NEXT:      %[[X:.*]] = offload.arg 0 : memref<?xf32>
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[N:.*]] = memref.dim %[[X]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:      %[[NI:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK-NEXT:      %[[S:.*]] = spirv.IAdd %[[NI]], %[[I]] : i32
offload.kernel @bounds : (memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?xf32>
    %ni = arith.index_cast %n : index to i32
    %s = arith.addi %ni, %i : i32
    %g = offload.global_tmp 0 : memref<i32>
    memref.store %s, %g[] : memref<i32>
  }
}

// Equality of integers is IEqual / INotEqual; of booleans LogicalEqual /
// LogicalNotEqual (SPIR-V has no integer compare of bools). Truncation to a bool keeps
// the lowest bit: (x & 1) != 0.
// CHECK-LABEL: func.func @equality_and_bool_truncation
// CHECK-SAME:    (%[[A:.*]]: i32, %[[B:.*]]: i32, %[[P:.*]]: i1, %[[Q:.*]]: i1)
// CHECK-NEXT:    %[[EQ:.*]] = spirv.IEqual %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[NE:.*]] = spirv.INotEqual %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[BEQ:.*]] = spirv.LogicalEqual %[[P]], %[[Q]] : i1
// CHECK-NEXT:    %[[BNE:.*]] = spirv.LogicalNotEqual %[[P]], %[[Q]] : i1
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[LOW:.*]] = spirv.BitwiseAnd %[[A]], %[[ONE]] : i32
// CHECK-NEXT:    %[[BIT:.*]] = spirv.INotEqual %[[LOW]], %[[ZERO]] : i32
// CHECK-NEXT:    func.return %[[EQ]], %[[NE]], %[[BEQ]], %[[BNE]], %[[BIT]]
func.func @equality_and_bool_truncation(%a: i32, %b: i32, %p: i1, %q: i1) -> (i1, i1, i1, i1, i1) {
  %0 = arith.cmpi eq, %a, %b : i32
  %1 = arith.cmpi ne, %a, %b : i32
  %2 = arith.cmpi eq, %p, %q : i1
  %3 = arith.cmpi ne, %p, %q : i1
  %4 = arith.trunci %a : i32 to i1
  func.return %0, %1, %2, %3, %4 : i1, i1, i1, i1, i1
}

// A widened value compared with a constant that fits its narrow type is compared in
// the narrow type (lavapipe answers the widened form wrongly; difftest seed 7), the
// constant on either side. Must not fire: a constant out of the narrow range, or a
// signed compare of a zero-extended value.
// CHECK-LABEL: func.func @narrow_extended_compare
// CHECK-SAME:    (%[[X:.*]]: i32) -> (i1, i1, i1, i1)
// CHECK-NEXT:    %[[W:.*]] = spirv.SConvert %[[X]] : i32 to i64
// CHECK-NEXT:    %[[U:.*]] = spirv.UConvert %[[X]] : i32 to i64
// CHECK-NEXT:    %[[C:.*]] = spirv.Constant 255 : i64
// CHECK-NEXT:    %[[BIG:.*]] = spirv.Constant 5000000000 : i64
// CHECK-NEXT:    %[[C32:.*]] = spirv.Constant 255 : i32
// CHECK-NEXT:    %[[R0:.*]] = spirv.SLessThan %[[X]], %[[C32]] : i32
// CHECK-NEXT:    %[[C32B:.*]] = spirv.Constant 255 : i32
// CHECK-NEXT:    %[[R1:.*]] = spirv.SLessThan %[[X]], %[[C32B]] : i32
// CHECK-NEXT:    %[[R2:.*]] = spirv.SLessThan %[[W]], %[[BIG]] : i64
// CHECK-NEXT:    %[[R3:.*]] = spirv.SLessThan %[[U]], %[[C]] : i64
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]] : i1, i1, i1, i1
func.func @narrow_extended_compare(%x: i32) -> (i1, i1, i1, i1) {
  %w = arith.extsi %x : i32 to i64
  %u = arith.extui %x : i32 to i64
  %c = arith.constant 255 : i64
  %big = arith.constant 5000000000 : i64
  %0 = arith.cmpi slt, %w, %c : i64
  %1 = arith.cmpi sgt, %c, %w : i64
  %2 = arith.cmpi slt, %w, %big : i64
  %3 = arith.cmpi slt, %u, %c : i64
  func.return %0, %1, %2, %3 : i1, i1, i1, i1
}

// A truncated value is compared as it is: spirv.SConvert/UConvert also truncate, and
// the narrowing above must not compare their wider source (difftest seed 7 of the widened
// generator: `ti.cast(a, ti.i8) > ti.i8(2)` was true for a = 255 on vulkan).
// CHECK-LABEL: func.func @truncated_compare
// CHECK-SAME:    (%[[X:.*]]: i32) -> (i1, i1)
// (Then compared at 32 bits: see @narrow_min_max_abs.)
// CHECK-NEXT:    %[[T:.*]] = spirv.SConvert %[[X]] : i32 to i8
// CHECK-NEXT:    %[[C:.*]] = spirv.Constant 2 : i8
// CHECK-NEXT:    %[[TW:.*]] = spirv.SConvert %[[T]] : i8 to i32
// CHECK-NEXT:    %[[CW:.*]] = spirv.SConvert %[[C]] : i8 to i32
// CHECK-NEXT:    %[[R0:.*]] = spirv.SGreaterThan %[[TW]], %[[CW]] : i32
// CHECK-NEXT:    %[[CW2:.*]] = spirv.SConvert %[[C]] : i8 to i32
// CHECK-NEXT:    %[[TW2:.*]] = spirv.SConvert %[[T]] : i8 to i32
// CHECK-NEXT:    %[[R1:.*]] = spirv.SGreaterThan %[[CW2]], %[[TW2]] : i32
// CHECK-NEXT:    func.return %[[R0]], %[[R1]] : i1, i1
func.func @truncated_compare(%x: i32) -> (i1, i1) {
  %t = arith.trunci %x : i32 to i8
  %c = arith.constant 2 : i8
  %0 = arith.cmpi sgt, %t, %c : i8
  %1 = arith.cmpi sgt, %c, %t : i8
  func.return %0, %1 : i1, i1
}

// SPIR-V orders integers only: bools are widened to i32 (1 for an unsigned predicate)
// before an ordered compare (difftest seed 2269).
// CHECK-LABEL: func.func @ordered_bool_compare
// CHECK-SAME:    (%[[P:.*]]: i1, %[[Q:.*]]: i1) -> i1
// CHECK-NEXT:    %[[T:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[F:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[A:.*]] = spirv.Select %[[P]], %[[T]], %[[F]] : i1, i32
// CHECK-NEXT:    %[[B:.*]] = spirv.Select %[[Q]], %[[T]], %[[F]] : i1, i32
// CHECK-NEXT:    %[[R:.*]] = spirv.ULessThan %[[A]], %[[B]] : i32
// CHECK-NEXT:    func.return %[[R]] : i1
func.func @ordered_bool_compare(%p: i1, %q: i1) -> i1 {
  %0 = arith.cmpi ult, %p, %q : i1
  func.return %0 : i1
}

// 8- and 16-bit integers are compared and min/max'ed at 32 bits, extended by the
// predicate's signedness (NVIDIA's driver got `i16(255) == max(i16(255), i16(7), x)`
// wrong; differential run on an H100).
// CHECK-LABEL: func.func @narrow_min_max_abs
// CHECK-SAME:    (%[[A:.*]]: i16, %[[B:.*]]: i16, %[[X:.*]]: i64, %[[Y:.*]]: i8)
// CHECK-NEXT:    %[[AS:.*]] = spirv.SConvert %[[A]] : i16 to i32
// CHECK-NEXT:    %[[BS:.*]] = spirv.SConvert %[[B]] : i16 to i32
// CHECK-NEXT:    %[[MAX:.*]] = spirv.GL.SMax %[[AS]], %[[BS]] : i32
// CHECK-NEXT:    %[[R0:.*]] = spirv.SConvert %[[MAX]] : i32 to i16
// CHECK-NEXT:    %[[AU:.*]] = spirv.UConvert %[[A]] : i16 to i32
// CHECK-NEXT:    %[[BU:.*]] = spirv.UConvert %[[B]] : i16 to i32
// CHECK-NEXT:    %[[MIN:.*]] = spirv.GL.UMin %[[AU]], %[[BU]] : i32
// CHECK-NEXT:    %[[R1:.*]] = spirv.SConvert %[[MIN]] : i32 to i16
// CHECK-NEXT:    %[[AU2:.*]] = spirv.UConvert %[[A]] : i16 to i32
// CHECK-NEXT:    %[[BU2:.*]] = spirv.UConvert %[[B]] : i16 to i32
// CHECK-NEXT:    %[[R2:.*]] = spirv.ULessThan %[[AU2]], %[[BU2]] : i32
// CHECK-NEXT:    %[[Z:.*]] = spirv.Constant 0 : i64
// CHECK-NEXT:    %[[NEG:.*]] = spirv.SNegate %[[X]] : i64
// CHECK-NEXT:    %[[LT:.*]] = spirv.SLessThan %[[X]], %[[Z]] : i64
// CHECK-NEXT:    %[[R3:.*]] = spirv.Select %[[LT]], %[[NEG]], %[[X]] : i1, i64
// CHECK-NEXT:    %[[YS:.*]] = spirv.SConvert %[[Y]] : i8 to i32
// CHECK-NEXT:    %[[Z8:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[NEG8:.*]] = spirv.SNegate %[[YS]] : i32
// CHECK-NEXT:    %[[LT8:.*]] = spirv.SLessThan %[[YS]], %[[Z8]] : i32
// CHECK-NEXT:    %[[ABS8:.*]] = spirv.Select %[[LT8]], %[[NEG8]], %[[YS]] : i1, i32
// CHECK-NEXT:    %[[R4:.*]] = spirv.SConvert %[[ABS8]] : i32 to i8
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]] : i16, i16, i1, i64, i8
// Integer abs is select(x < 0, -x, x) (narrow types at 32 bits), never GLSL SAbs nor
// SMax(x, -x): NVIDIA's driver takes SAbs(x) as never negative (false for INT_MIN) and
// computed SMax(x, -x) as an unsigned max.
func.func @narrow_min_max_abs(%a: i16, %b: i16, %x: i64, %y: i8) -> (i16, i16, i1, i64, i8) {
  %0 = arith.maxsi %a, %b : i16
  %1 = arith.minui %a, %b : i16
  %2 = arith.cmpi ult, %a, %b : i16
  %3 = math.absi %x : i64
  %4 = math.absi %y : i8
  func.return %0, %1, %2, %3, %4 : i16, i16, i1, i64, i8
}

// min/max of bools: GLSL.std.450's UMax / SMin take no bools, so logical ops that give
// the same. Unsigned, true is 1: max is or, min is and. Signed, an i1's true is -1:
// max is and, min is or.
// CHECK-LABEL: func.func @bool_min_max
// CHECK-NEXT:    %[[UMAX:.*]] = spirv.LogicalOr %[[A:.*]], %[[B:.*]] : i1
// CHECK-NEXT:    %[[UMIN:.*]] = spirv.LogicalAnd %[[A]], %[[B]] : i1
// CHECK-NEXT:    %[[SMAX:.*]] = spirv.LogicalAnd %[[A]], %[[B]] : i1
// CHECK-NEXT:    %[[SMIN:.*]] = spirv.LogicalOr %[[A]], %[[B]] : i1
// CHECK-NEXT:    func.return %[[UMAX]], %[[UMIN]], %[[SMAX]], %[[SMIN]] : i1, i1, i1, i1
func.func @bool_min_max(%a: i1, %b: i1) -> (i1, i1, i1, i1) {
  %0 = arith.maxui %a, %b : i1
  %1 = arith.minui %a, %b : i1
  %2 = arith.maxsi %a, %b : i1
  %3 = arith.minsi %a, %b : i1
  func.return %0, %1, %2, %3 : i1, i1, i1, i1
}
