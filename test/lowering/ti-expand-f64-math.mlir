// RUN: ti-opt %s -p ti-expand-f64-math | filecheck %s
// RUN: ti-opt %s -p ti-expand-f64-math | filecheck %s --check-prefix=SERIES

// Each series has exactly its terms: exp to 1/13!, atanh to 1/25, sin to 1/27!, cos to
// 1/26!, atan to 1/49; the next term of each is absent.
// SERIES-NOT: arith.constant 1.1470745597729725e-11 : f64
// SERIES-NOT: arith.constant 0.037037037037037035 : f64
// SERIES-NOT: arith.constant 1.1309962886447716e-31 : f64
// SERIES-NOT: arith.constant 3.2798892370698378e-30 : f64
// SERIES-NOT: arith.constant -0.019607843137254902 : f64
// SERIES: func.func @left_alone

// f64 exp: range check, x = k ln2 + r (ln2 in two parts), expm1(r) by Horner with fma,
// then 1 + q scaled by two powers of two built from their bits; inf above, 0 below,
// NaN kept. Float ops carry no_contraction (NoContraction in SPIR-V).
// CHECK-LABEL: func.func @exp
// CHECK-SAME:    (%[[X:.*]]: f64) -> f64
// CHECK:         %[[MAX:.*]] = arith.constant 709.78271289338397 : f64
// CHECK-NEXT:    %[[OVER:.*]] = arith.cmpf ogt, %[[X]], %[[MAX]] : f64
// CHECK-NEXT:    %[[MIN:.*]] = arith.constant -745.13321910194122 : f64
// CHECK-NEXT:    %[[UNDER:.*]] = arith.cmpf olt, %[[X]], %[[MIN]] : f64
// CHECK-NEXT:    %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK:         %[[SAFE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[X]] {no_contraction} : f64
// CHECK:         %[[LOG2E:.*]] = arith.constant 1.4426950408889634 : f64
// CHECK-NEXT:    %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:    %[[KX:.*]] = math.fma %[[SAFE]], %[[LOG2E]], %[[HALF]] {no_contraction} : f64
// CHECK-NEXT:    %[[K:.*]] = math.floor %[[KX]] {no_contraction} : f64
// CHECK-NEXT:    %[[LN2HI:.*]] = arith.constant 0.69314718036912382 : f64
// CHECK-NEXT:    %[[KHI:.*]] = arith.mulf %[[K]], %[[LN2HI]] {no_contraction} : f64
// CHECK-NEXT:    %[[RHI:.*]] = arith.subf %[[SAFE]], %[[KHI]] {no_contraction} : f64
// CHECK:         %[[KI:.*]] = arith.fptosi %[[K]] : f64 to i64
// CHECK:         %[[K1:.*]] = arith.shrsi %[[KI]], %{{.*}} : i64
// CHECK-NEXT:    %[[K2:.*]] = arith.subi %[[KI]], %[[K1]] : i64
// CHECK:         %[[S1:.*]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:    %[[M1:.*]] = arith.mulf %{{.*}}, %[[S1]] {no_contraction} : f64
// CHECK:         %[[S2:.*]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK-NEXT:    %[[M2:.*]] = arith.mulf %[[M1]], %[[S2]] {no_contraction} : f64
// CHECK-NEXT:    %[[R1:.*]] = arith.select %[[UNDER]], %{{.*}}, %[[M2]] {no_contraction} : f64
// CHECK-NEXT:    %[[INF:.*]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:    %[[R2:.*]] = arith.select %[[OVER]], %[[INF]], %[[R1]] {no_contraction} : f64
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[NAN]], %[[X]], %[[R2]] {no_contraction} : f64
// CHECK-NEXT:    func.return %[[R]] : f64
func.func @exp(%x: f64) -> f64 {
  %y = math.exp %x : f64
  func.return %y : f64
}

// f64 log: the exponent and mantissa from the bits (subnormals scaled by 2^54 first),
// then log's special values: inf stays inf, 0 gives -inf, a negative x (or NaN) NaN.
// CHECK-LABEL: func.func @log
// CHECK-SAME:    (%[[X:.*]]: f64) -> f64
// CHECK:         %[[TINY:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f64
// CHECK:         %[[BITS:.*]] = arith.bitcast %{{.*}} : f64 to i64
// CHECK-NEXT:    %[[E:.*]] = arith.constant 52 : i64
// CHECK-NEXT:    %{{.*}} = arith.shrsi %[[BITS]], %[[E]] : i64
// CHECK:         %[[ISINF:.*]] = arith.cmpf oeq, %[[X]], %{{.*}} : f64
// CHECK-NEXT:    %[[A:.*]] = arith.select %[[ISINF]], %[[X]], %{{.*}} {no_contraction} : f64
// CHECK:         %[[ISZERO:.*]] = arith.cmpf oeq, %[[X]], %{{.*}} : f64
// CHECK-NEXT:    %[[NINF:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK-NEXT:    %[[B:.*]] = arith.select %[[ISZERO]], %[[NINF]], %[[A]] {no_contraction} : f64
// CHECK:         %[[NEG:.*]] = arith.cmpf ult, %[[X]], %{{.*}} : f64
// CHECK-NEXT:    %[[QNAN:.*]] = arith.constant 0x7ff8000000000000 : f64
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[NEG]], %[[QNAN]], %[[B]] {no_contraction} : f64
// CHECK-NEXT:    func.return %[[R]] : f64
func.func @log(%x: f64) -> f64 {
  %y = math.log %x : f64
  func.return %y : f64
}

// pow ends with C's special cases: pow(x, 0) = 1 last, so it wins over NaN.
// CHECK-LABEL: func.func @pow
// CHECK-SAME:    (%[[X:[^:]*]]: f64, %[[Y:[^:]*]]: f64) -> f64
// CHECK:         %[[YZ:.*]] = arith.cmpf oeq, %[[Y]], %{{.*}} : f64
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[YZ]], %{{.*}}, %{{.*}} {no_contraction} : f64
// CHECK-NEXT:    func.return %[[R]] : f64
func.func @pow(%x: f64, %y: f64) -> f64 {
  %p = math.powf %x, %y : f64
  func.return %p : f64
}

// f64 sin: reduced by Cody-Waite below 2^20 and by Payne-Hanek above (a select picks),
// then the polynomial of the quadrant, and the sign of x.
// CHECK-LABEL: func.func @sin
// CHECK-SAME:    (%[[X:.*]]: f64) -> f64
// CHECK-NEXT:    %[[A:.*]] = math.absf %[[X]] {no_contraction} : f64
// CHECK-NEXT:    %[[LIMIT:.*]] = arith.constant 0x4130000000000000 : f64
// CHECK-NEXT:    %[[SMALL:.*]] = arith.cmpf olt, %[[A]], %[[LIMIT]] : f64
// CHECK:         %[[NEG:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f64
// CHECK-NEXT:    %[[FLIP:.*]] = arith.negf %[[S:.*]] {no_contraction} : f64
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[NEG]], %[[FLIP]], %[[S]] {no_contraction} : f64
// CHECK-NEXT:    func.return %[[R]] : f64
func.func @sin(%x: f64) -> f64 {
  %y = math.sin %x : f64
  func.return %y : f64
}

// f64 atan2 ends with NaN: x + y when either is NaN.
// CHECK-LABEL: func.func @atan2
// CHECK-SAME:    (%[[Y:[^:]*]]: f64, %[[X:[^:]*]]: f64) -> f64
// CHECK:         %[[XN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK-NEXT:    %[[YN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : f64
// CHECK-NEXT:    %[[NAN:.*]] = arith.ori %[[XN]], %[[YN]] : i1
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] {no_contraction} : f64
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[NAN]], %[[SUM]], %{{.*}} {no_contraction} : f64
// CHECK-NEXT:    func.return %[[R]] : f64
func.func @atan2(%y: f64, %x: f64) -> f64 {
  %a = math.atan2 %y, %x : f64
  func.return %a : f64
}

// Not fired: f32 has GLSL.std.450 versions, and f64 sinh has no expansion (it is
// refused later, by convert-arith-to-spirv).
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT:    %[[E:.*]] = math.exp %{{.*}} : f32
// CHECK-NEXT:    %[[S:.*]] = math.sinh %{{.*}} : f64
// CHECK-NEXT:    func.return %[[E]], %[[S]] : f32, f64
func.func @left_alone(%a: f32, %b: f64) -> (f32, f64) {
  %e = math.exp %a : f32
  %s = math.sinh %b : f64
  func.return %e, %s : f32, f64
}

// The split constants, to the last bit: ln 2 as a double-double (log), pi/2 in three
// Cody-Waite parts of 33, 33 and 53 bits (sin), and the first 52-bit chunk of 2/pi
// times 2^1000 in two 26-bit halves (Payne-Hanek).
// CHECK-LABEL: func.func @log_constants
// CHECK:         %{{.*}} = arith.constant 0.69314718055994529 : f64
// CHECK-NEXT:    %{{.*}} = arith.constant 2.3190468138462996e-17 : f64
func.func @log_constants(%x: f64) -> f64 {
  %y = math.log %x : f64
  func.return %y : f64
}
// CHECK-LABEL: func.func @sin_constants
// CHECK:         %{{.*}} = arith.constant 1.5707963267341256 : f64
// CHECK:         %{{.*}} = arith.constant 6.077100506303966e-11 : f64
// CHECK:         %{{.*}} = arith.constant 2.0222662487959506e-21 : f64
// CHECK:         %{{.*}} = arith.constant 9.3326361850321888e-302 : f64
// CHECK:         %{{.*}} = arith.constant 6.8214355404447123e+300 : f64
// CHECK:         %{{.*}} = arith.constant 1.1552354326939692e+293 : f64
func.func @sin_constants(%x: f64) -> f64 {
  %y = math.sin %x : f64
  func.return %y : f64
}
