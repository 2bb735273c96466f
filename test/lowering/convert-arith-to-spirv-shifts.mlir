// RUN: ti-opt %s -p convert-arith-to-spirv | filecheck %s

// Left shifts are spelt for NVIDIA's driver (see _shift_left): 8/16-bit at 32 bits with
// the low bits re-sign-extended by BitFieldSExtract; 64-bit on the two 32-bit halves;
// 32-bit as it is.
// CHECK-LABEL: func.func @narrow
// CHECK-SAME:    (%[[A:.*]]: i16, %[[B:.*]]: i16, %[[G:.*]]: i8)
// CHECK-NEXT:    %[[A32:.*]] = spirv.SConvert %[[A]] : i16 to i32
// CHECK-NEXT:    %[[B32:.*]] = spirv.UConvert %[[B]] : i16 to i32
// CHECK-NEXT:    %[[S:.*]] = spirv.ShiftLeftLogical %[[A32]], %[[B32]] : i32, i32
// CHECK-NEXT:    %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[W:.*]] = spirv.Constant 16 : i32
// CHECK-NEXT:    %[[E:.*]] = spirv.BitFieldSExtract %[[S]], %[[Z]], %[[W]] : i32, i32, i32
// CHECK-NEXT:    %[[R:.*]] = spirv.SConvert %[[E]] : i32 to i16
// CHECK-NEXT:    %[[G32:.*]] = spirv.SConvert %[[G]] : i8 to i32
// CHECK-NEXT:    %[[GN:.*]] = spirv.UConvert %[[G]] : i8 to i32
// CHECK-NEXT:    %[[GS:.*]] = spirv.ShiftLeftLogical %[[G32]], %[[GN]] : i32, i32
// CHECK-NEXT:    %[[GZ:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[GW:.*]] = spirv.Constant 8 : i32
// CHECK-NEXT:    %[[GE:.*]] = spirv.BitFieldSExtract %[[GS]], %[[GZ]], %[[GW]] : i32, i32, i32
// CHECK-NEXT:    %[[GR:.*]] = spirv.SConvert %[[GE]] : i32 to i8
// CHECK-NEXT:    func.return %[[R]], %[[GR]] : i16, i8
func.func @narrow(%a: i16, %b: i16, %g: i8) -> (i16, i8) {
  %0 = arith.shli %a, %b : i16
  %1 = arith.shli %g, %g : i8
  func.return %0, %1 : i16, i8
}

// CHECK-LABEL: func.func @word
// CHECK-NEXT:    %[[R:.*]] = spirv.ShiftLeftLogical %{{.*}}, %{{.*}} : i32, i32
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @word(%e: i32, %n: i32) -> i32 {
  %0 = arith.shli %e, %n : i32
  func.return %0 : i32
}

// A constant amount below 32: (lo << 5, hi << 5 | lo >> 27); from 32: (0, lo << (c - 32));
// 0 (and 64): the value itself.
// CHECK-LABEL: func.func @wide_constant
// CHECK-SAME:    (%[[X:.*]]: i64)
// CHECK:         %[[V:.*]] = spirv.Bitcast %[[X]] : i64 to vector<2xi32>
// CHECK-NEXT:    %[[LO:.*]] = spirv.CompositeExtract %[[V]][0 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[HI:.*]] = spirv.CompositeExtract %[[V]][1 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[C5:.*]] = spirv.Constant 5 : i32
// CHECK-NEXT:    %[[L:.*]] = spirv.ShiftLeftLogical %[[LO]], %[[C5]] : i32, i32
// CHECK-NEXT:    %[[C27:.*]] = spirv.Constant 27 : i32
// CHECK-NEXT:    %[[CARRY:.*]] = spirv.ShiftRightLogical %[[LO]], %[[C27]] : i32, i32
// CHECK-NEXT:    %[[C5B:.*]] = spirv.Constant 5 : i32
// CHECK-NEXT:    %[[HS:.*]] = spirv.ShiftLeftLogical %[[HI]], %[[C5B]] : i32, i32
// CHECK-NEXT:    %[[H:.*]] = spirv.BitwiseOr %[[HS]], %[[CARRY]] : i32
// CHECK-NEXT:    %[[W:.*]] = spirv.CompositeConstruct %[[L]], %[[H]] : (i32, i32) -> vector<2xi32>
// CHECK-NEXT:    %[[R5:.*]] = spirv.Bitcast %[[W]] : vector<2xi32> to i64
// CHECK-NEXT:    %[[V2:.*]] = spirv.Bitcast %[[X]] : i64 to vector<2xi32>
// CHECK-NEXT:    %[[LO2:.*]] = spirv.CompositeExtract %[[V2]][0 : i32] : vector<2xi32>
// CHECK-NEXT:    spirv.CompositeExtract %[[V2]][1 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[C26:.*]] = spirv.Constant 26 : i32
// CHECK-NEXT:    %[[H2:.*]] = spirv.ShiftLeftLogical %[[LO2]], %[[C26]] : i32, i32
// CHECK-NEXT:    %[[W2:.*]] = spirv.CompositeConstruct %[[ZERO]], %[[H2]] : (i32, i32) -> vector<2xi32>
// CHECK-NEXT:    %[[R58:.*]] = spirv.Bitcast %[[W2]] : vector<2xi32> to i64
// CHECK-NEXT:    func.return %[[R5]], %[[R58]], %[[X]] : i64, i64, i64
func.func @wide_constant(%x: i64) -> (i64, i64, i64) {
  %c5 = arith.constant 5 : i64
  %c58 = arith.constant 58 : i64
  %c0 = arith.constant 0 : i64
  %0 = arith.shli %x, %c5 : i64
  %1 = arith.shli %x, %c58 : i64
  %2 = arith.shli %x, %c0 : i64
  func.return %0, %1, %2 : i64, i64, i64
}

// A variable amount n: both cases computed, selected on n & 32; lo >> (32 - n) taken in
// two steps, (lo >> 1) >> (31 - n), since a shift by 32 is undefined.
// CHECK-LABEL: func.func @wide_variable
// CHECK-SAME:    (%[[X:.*]]: i64, %[[N:.*]]: i64)
// CHECK-NEXT:    %[[V:.*]] = spirv.Bitcast %[[X]] : i64 to vector<2xi32>
// CHECK-NEXT:    %[[LO:.*]] = spirv.CompositeExtract %[[V]][0 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[HI:.*]] = spirv.CompositeExtract %[[V]][1 : i32] : vector<2xi32>
// CHECK-NEXT:    %[[N32:.*]] = spirv.SConvert %[[N]] : i64 to i32
// CHECK-NEXT:    %[[C31:.*]] = spirv.Constant 31 : i32
// CHECK-NEXT:    %[[LOW5:.*]] = spirv.BitwiseAnd %[[N32]], %[[C31]] : i32
// CHECK-NEXT:    %[[C32:.*]] = spirv.Constant 32 : i32
// CHECK-NEXT:    %[[BIT5:.*]] = spirv.BitwiseAnd %[[N32]], %[[C32]] : i32
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[ABOVE:.*]] = spirv.INotEqual %[[BIT5]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[LS:.*]] = spirv.ShiftLeftLogical %[[LO]], %[[LOW5]] : i32, i32
// CHECK-NEXT:    %[[HS:.*]] = spirv.ShiftLeftLogical %[[HI]], %[[LOW5]] : i32, i32
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[LO1:.*]] = spirv.ShiftRightLogical %[[LO]], %[[ONE]] : i32, i32
// CHECK-NEXT:    %[[C31B:.*]] = spirv.Constant 31 : i32
// CHECK-NEXT:    %[[BACK:.*]] = spirv.ISub %[[C31B]], %[[LOW5]] : i32
// CHECK-NEXT:    %[[CARRY:.*]] = spirv.ShiftRightLogical %[[LO1]], %[[BACK]] : i32, i32
// CHECK-NEXT:    %[[BELOW:.*]] = spirv.BitwiseOr %[[HS]], %[[CARRY]] : i32
// CHECK-NEXT:    %[[Z2:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[NL:.*]] = spirv.Select %[[ABOVE]], %[[Z2]], %[[LS]] : i1, i32
// CHECK-NEXT:    %[[NH:.*]] = spirv.Select %[[ABOVE]], %[[LS]], %[[BELOW]] : i1, i32
// CHECK-NEXT:    %[[W:.*]] = spirv.CompositeConstruct %[[NL]], %[[NH]] : (i32, i32) -> vector<2xi32>
// CHECK-NEXT:    %[[R:.*]] = spirv.Bitcast %[[W]] : vector<2xi32> to i64
// CHECK-NEXT:    func.return %[[R]] : i64
func.func @wide_variable(%x: i64, %n: i64) -> i64 {
  %0 = arith.shli %x, %n : i64
  func.return %0 : i64
}
