// RUN: ti-opt %s -p convert-arith-to-spirv | filecheck %s

// The narrowing of `ext(%x) cmp C` (see convert-arith-to-spirv.mlir) at the edges of the
// narrow type's range: an i8 sign-extended narrows for C in [-128, 127] only.
// CHECK-LABEL: func.func @signed_i8_edges
// CHECK-SAME:    (%[[X:.*]]: i8)
// CHECK-NEXT:    %[[W:.*]] = spirv.SConvert %[[X]] : i8 to i32
// CHECK-NEXT:    spirv.Constant -128 : i32
// CHECK-NEXT:    %[[BELOW:.*]] = spirv.Constant -129 : i32
// CHECK-NEXT:    spirv.Constant 127 : i32
// CHECK-NEXT:    %[[ABOVE:.*]] = spirv.Constant 128 : i32
// CHECK-NEXT:    %[[LO:.*]] = spirv.Constant -128 : i8
// CHECK-NEXT:    %[[X0:.*]] = spirv.SConvert %[[X]] : i8 to i32
// CHECK-NEXT:    %[[LO32:.*]] = spirv.SConvert %[[LO]] : i8 to i32
// CHECK-NEXT:    %[[R0:.*]] = spirv.SGreaterThanEqual %[[X0]], %[[LO32]] : i32
// CHECK-NEXT:    %[[R1:.*]] = spirv.SGreaterThanEqual %[[W]], %[[BELOW]] : i32
// CHECK-NEXT:    %[[HI:.*]] = spirv.Constant 127 : i8
// CHECK-NEXT:    %[[X2:.*]] = spirv.SConvert %[[X]] : i8 to i32
// CHECK-NEXT:    %[[HI32:.*]] = spirv.SConvert %[[HI]] : i8 to i32
// CHECK-NEXT:    %[[R2:.*]] = spirv.SLessThanEqual %[[X2]], %[[HI32]] : i32
// CHECK-NEXT:    %[[R3:.*]] = spirv.SLessThanEqual %[[W]], %[[ABOVE]] : i32
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]] : i1, i1, i1, i1
func.func @signed_i8_edges(%x: i8) -> (i1, i1, i1, i1) {
  %w = arith.extsi %x : i8 to i32
  %lo = arith.constant -128 : i32
  %below = arith.constant -129 : i32
  %hi = arith.constant 127 : i32
  %above = arith.constant 128 : i32
  %0 = arith.cmpi sge, %w, %lo : i32
  %1 = arith.cmpi sge, %w, %below : i32
  %2 = arith.cmpi sle, %w, %hi : i32
  %3 = arith.cmpi sle, %w, %above : i32
  func.return %0, %1, %2, %3 : i1, i1, i1, i1
}

// Zero-extended: C in [0, 255]; from 128 up the i8 constant holds the signed pattern
// (128 is -128, 255 is -1). An `eq` with -1 (out of range) stays as it is.
// CHECK-LABEL: func.func @unsigned_i8_edges
// CHECK-SAME:    (%[[X:.*]]: i8)
// CHECK-NEXT:    %[[W:.*]] = spirv.UConvert %[[X]] : i8 to i32
// CHECK-NEXT:    spirv.Constant 0 : i32
// CHECK-NEXT:    %[[NEG:.*]] = spirv.Constant -1 : i32
// CHECK-NEXT:    spirv.Constant 127 : i32
// CHECK-NEXT:    spirv.Constant 128 : i32
// CHECK-NEXT:    spirv.Constant 255 : i32
// CHECK-NEXT:    %[[ABOVE:.*]] = spirv.Constant 256 : i32
// CHECK-NEXT:    %[[C0:.*]] = spirv.Constant 0 : i8
// CHECK-NEXT:    %[[X0:.*]] = spirv.UConvert %[[X]] : i8 to i32
// CHECK-NEXT:    %[[C0W:.*]] = spirv.UConvert %[[C0]] : i8 to i32
// CHECK-NEXT:    %[[R0:.*]] = spirv.UGreaterThanEqual %[[X0]], %[[C0W]] : i32
// CHECK-NEXT:    %[[R1:.*]] = spirv.IEqual %[[W]], %[[NEG]] : i32
// CHECK-NEXT:    %[[C127:.*]] = spirv.Constant 127 : i8
// CHECK-NEXT:    %[[X2:.*]] = spirv.UConvert %[[X]] : i8 to i32
// CHECK-NEXT:    %[[C127W:.*]] = spirv.UConvert %[[C127]] : i8 to i32
// CHECK-NEXT:    %[[R2:.*]] = spirv.ULessThan %[[X2]], %[[C127W]] : i32
// CHECK-NEXT:    %[[C128:.*]] = spirv.Constant -128 : i8
// CHECK-NEXT:    %[[X3:.*]] = spirv.UConvert %[[X]] : i8 to i32
// CHECK-NEXT:    %[[C128W:.*]] = spirv.UConvert %[[C128]] : i8 to i32
// CHECK-NEXT:    %[[R3:.*]] = spirv.ULessThan %[[X3]], %[[C128W]] : i32
// CHECK-NEXT:    %[[C255:.*]] = spirv.Constant -1 : i8
// CHECK-NEXT:    %[[X4:.*]] = spirv.UConvert %[[X]] : i8 to i32
// CHECK-NEXT:    %[[C255W:.*]] = spirv.UConvert %[[C255]] : i8 to i32
// CHECK-NEXT:    %[[R4:.*]] = spirv.ULessThanEqual %[[X4]], %[[C255W]] : i32
// CHECK-NEXT:    %[[R5:.*]] = spirv.ULessThanEqual %[[W]], %[[ABOVE]] : i32
// CHECK-NEXT:    func.return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]]
func.func @unsigned_i8_edges(%x: i8) -> (i1, i1, i1, i1, i1, i1) {
  %w = arith.extui %x : i8 to i32
  %zero = arith.constant 0 : i32
  %neg = arith.constant -1 : i32
  %c127 = arith.constant 127 : i32
  %c128 = arith.constant 128 : i32
  %hi = arith.constant 255 : i32
  %above = arith.constant 256 : i32
  %0 = arith.cmpi uge, %w, %zero : i32
  %1 = arith.cmpi eq, %w, %neg : i32
  %2 = arith.cmpi ult, %w, %c127 : i32
  %3 = arith.cmpi ult, %w, %c128 : i32
  %4 = arith.cmpi ule, %w, %hi : i32
  %5 = arith.cmpi ule, %w, %above : i32
  func.return %0, %1, %2, %3, %4, %5 : i1, i1, i1, i1, i1, i1
}

// `cmpf true` / `false` are constants.
// CHECK-LABEL: func.func @constant_compares
// CHECK-NEXT:    %[[T:.*]] = spirv.Constant true
// CHECK-NEXT:    %[[F:.*]] = spirv.Constant false
// CHECK-NEXT:    func.return %[[T]], %[[F]] : i1, i1
func.func @constant_compares(%x: f32, %y: f32) -> (i1, i1) {
  %t = arith.cmpf true, %x, %y : f32
  %f = arith.cmpf false, %x, %y : f32
  func.return %t, %f : i1, i1
}

// A bool read as a signed integer is -1 (as a float -1.0), as an unsigned one 1 (1.0);
// an unsigned i32 to float is ConvertUToF.
// CHECK-LABEL: func.func @bool_to_float_and_int
// CHECK-SAME:    (%[[B:.*]]: i1, %[[U:.*]]: i32)
// CHECK-NEXT:    %[[SON:.*]] = spirv.Constant -1.000000e+00 : f32
// CHECK-NEXT:    %[[SOFF:.*]] = spirv.Constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[S:.*]] = spirv.Select %[[B]], %[[SON]], %[[SOFF]] : i1, f32
// CHECK-NEXT:    %[[UON:.*]] = spirv.Constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[UOFF:.*]] = spirv.Constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[V:.*]] = spirv.Select %[[B]], %[[UON]], %[[UOFF]] : i1, f32
// CHECK-NEXT:    %[[W:.*]] = spirv.ConvertUToF %[[U]] : i32 to f32
// CHECK-NEXT:    %[[EON:.*]] = spirv.Constant -1 : i32
// CHECK-NEXT:    %[[EOFF:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[E:.*]] = spirv.Select %[[B]], %[[EON]], %[[EOFF]] : i1, i32
// CHECK-NEXT:    func.return %[[S]], %[[V]], %[[W]], %[[E]] : f32, f32, f32, i32
func.func @bool_to_float_and_int(%b: i1, %u: i32) -> (f32, f32, f32, i32) {
  %s = arith.sitofp %b : i1 to f32
  %v = arith.uitofp %b : i1 to f32
  %w = arith.uitofp %u : i32 to f32
  %e = arith.extsi %b : i1 to i32
  func.return %s, %v, %w, %e : f32, f32, f32, i32
}

// A signed ordered compare of bools widens true to -1 (arith reads an i1 signed).
// CHECK-LABEL: func.func @signed_bool_compare
// CHECK-SAME:    (%[[P:.*]]: i1, %[[Q:.*]]: i1)
// CHECK-NEXT:    %[[T:.*]] = spirv.Constant -1 : i32
// CHECK-NEXT:    %[[F:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[A:.*]] = spirv.Select %[[P]], %[[T]], %[[F]] : i1, i32
// CHECK-NEXT:    %[[B:.*]] = spirv.Select %[[Q]], %[[T]], %[[F]] : i1, i32
// CHECK-NEXT:    %[[R:.*]] = spirv.SLessThan %[[A]], %[[B]] : i32
// CHECK-NEXT:    func.return %[[R]] : i1
func.func @signed_bool_compare(%p: i1, %q: i1) -> i1 {
  %0 = arith.cmpi slt, %p, %q : i1
  func.return %0 : i1
}

// log10(x) is log(x) * log10(e); rsqrt is GLSL InverseSqrt.
// CHECK-LABEL: func.func @log10_rsqrt
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    %[[L:.*]] = spirv.GL.Log %[[X]] : f32
// CHECK-NEXT:    %[[K:.*]] = spirv.Constant 0.434294492 : f32
// CHECK-NEXT:    %[[L10:.*]] = spirv.FMul %[[L]], %[[K]] : f32
// CHECK-NEXT:    %[[R:.*]] = spirv.GL.InverseSqrt %[[X]] : f32
// CHECK-NEXT:    func.return %[[L10]], %[[R]] : f32, f32
func.func @log10_rsqrt(%x: f32) -> (f32, f32) {
  %l = math.log10 %x : f32
  %r = math.rsqrt %x : f32
  func.return %l, %r : f32, f32
}

// Signed min widens by SConvert, unsigned max by UConvert.
// CHECK-LABEL: func.func @min_max_kinds
// CHECK-SAME:    (%[[A:.*]]: i16, %[[B:.*]]: i16)
// CHECK-NEXT:    %[[AS:.*]] = spirv.SConvert %[[A]] : i16 to i32
// CHECK-NEXT:    %[[BS:.*]] = spirv.SConvert %[[B]] : i16 to i32
// CHECK-NEXT:    %[[MIN:.*]] = spirv.GL.SMin %[[AS]], %[[BS]] : i32
// CHECK-NEXT:    %[[R0:.*]] = spirv.SConvert %[[MIN]] : i32 to i16
// CHECK-NEXT:    %[[AU:.*]] = spirv.UConvert %[[A]] : i16 to i32
// CHECK-NEXT:    %[[BU:.*]] = spirv.UConvert %[[B]] : i16 to i32
// CHECK-NEXT:    %[[MAX:.*]] = spirv.GL.UMax %[[AU]], %[[BU]] : i32
// CHECK-NEXT:    %[[R1:.*]] = spirv.SConvert %[[MAX]] : i32 to i16
// CHECK-NEXT:    func.return %[[R0]], %[[R1]] : i16, i16
func.func @min_max_kinds(%a: i16, %b: i16) -> (i16, i16) {
  %0 = arith.minsi %a, %b : i16
  %1 = arith.maxui %a, %b : i16
  func.return %0, %1 : i16, i16
}

// An op with an index operand is left alone even when its result is not an index.
// CHECK-LABEL: func.func @index_compare
// CHECK-NEXT:    arith.cmpi slt, %{{.*}}, %{{.*}} : index
func.func @index_compare(%a: index, %b: index) -> i1 {
  %0 = arith.cmpi slt, %a, %b : index
  func.return %0 : i1
}

// `ori` of bools is LogicalOr, of integers BitwiseOr (likewise `andi`).
// CHECK-LABEL: func.func @bitwise_kinds
// CHECK-SAME:    (%[[P:.*]]: i1, %[[Q:.*]]: i1, %[[A:.*]]: i32, %[[B:.*]]: i32)
// CHECK-NEXT:    %[[LO:.*]] = spirv.LogicalOr %[[P]], %[[Q]] : i1
// CHECK-NEXT:    %[[BO:.*]] = spirv.BitwiseOr %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[LA:.*]] = spirv.LogicalAnd %[[P]], %[[Q]] : i1
// CHECK-NEXT:    %[[BA:.*]] = spirv.BitwiseAnd %[[A]], %[[B]] : i32
// CHECK-NEXT:    func.return %[[LO]], %[[BO]], %[[LA]], %[[BA]] : i1, i32, i1, i32
func.func @bitwise_kinds(%p: i1, %q: i1, %a: i32, %b: i32) -> (i1, i32, i1, i32) {
  %0 = arith.ori %p, %q : i1
  %1 = arith.ori %a, %b : i32
  %2 = arith.andi %p, %q : i1
  %3 = arith.andi %a, %b : i32
  func.return %0, %1, %2, %3 : i1, i32, i1, i32
}
