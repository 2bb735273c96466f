// RUN: ti-opt %s -p convert-func-to-llvm | filecheck %s

// A scalar function becomes an llvm.func with the same body; index is i64.
// CHECK-LABEL: llvm.func @scale
// CHECK-SAME:    (%[[X:.*]]: f32, %[[N:.*]]: i64) -> f32
// CHECK-NEXT:    %[[N_INDEX:.*]] = builtin.unrealized_conversion_cast %[[N]] : i64 to index
// CHECK-NEXT:    %[[Y:.*]] = llvm.call @twice(%[[X]]) : (f32) -> f32
// CHECK-NEXT:    "test.op"(%[[N_INDEX]]) : (index) -> ()
// CHECK-NEXT:    llvm.return %[[Y]] : f32
func.func @scale(%x: f32, %n: index) -> f32 {
  %y = func.call @twice(%x) : (f32) -> f32
  "test.op"(%n) : (index) -> ()
  func.return %y : f32
}

// A declaration stays a declaration; no results is void.
// CHECK-LABEL: llvm.func @twice(f32) -> f32
// CHECK-LABEL: llvm.func @nothing()
// CHECK-NEXT:    llvm.return
func.func private @twice(f32) -> f32
func.func @nothing() {
  func.return
}

// memref arguments have no direct LLVM form (no descriptors here): the pass must leave
// the function, its calls and its return alone.
// CHECK-LABEL: func.func @memref_untouched
// CHECK-NEXT:    func.return
func.func @memref_untouched(%m: memref<4xf32>) {
  func.return
}

// A call converts with its own signature (two operands, one result); a call whose
// callee takes a memref stays a func.call, also inside a function that converts.
// CHECK:       llvm.func @add2(f32, f32) -> f32
// CHECK-NEXT:  func.func private @keep(memref<4xf32>) -> ()
// CHECK-LABEL: llvm.func @calls(%{{.*}}: f32, %{{.*}}: f32) -> f32 {
// CHECK-NEXT:    %[[S:.*]] = llvm.call @add2(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT:    %[[M:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    func.call @keep(%[[M]]) : (memref<4xf32>) -> ()
// CHECK-NEXT:    llvm.return %[[S]] : f32
func.func private @add2(f32, f32) -> f32
func.func private @keep(memref<4xf32>)
func.func @calls(%x: f32, %y: f32) -> f32 {
  %s = func.call @add2(%x, %y) : (f32, f32) -> f32
  %m = memref.alloca() : memref<4xf32>
  func.call @keep(%m) : (memref<4xf32>) -> ()
  func.return %s : f32
}

// A vector of index is a vector of i64, in signatures, calls and returns.
// CHECK:       llvm.func @vector_callee(vector<4xi64>) -> vector<4xi64>
// CHECK-LABEL: llvm.func @vector_index(%{{.*}}: vector<4xi64>) -> vector<4xi64> {
// CHECK:         %[[W:.*]] = llvm.call @vector_callee(%{{.*}}) : (vector<4xi64>) -> vector<4xi64>
// CHECK:         llvm.return %[[W]] : vector<4xi64>
func.func private @vector_callee(vector<4xindex>) -> vector<4xindex>
func.func @vector_index(%v: vector<4xindex>) -> vector<4xindex> {
  %w = func.call @vector_callee(%v) : (vector<4xindex>) -> vector<4xindex>
  func.return %w : vector<4xindex>
}

// Two results have no direct LLVM form: the function stays. A call nested in a region
// of a converted function converts too. The pass converts and removes nothing else:
// an unused constant stays.
// CHECK-LABEL: func.func @pair
// CHECK-NEXT:    func.return %{{.*}}, %{{.*}} : f32, f32
// CHECK-LABEL: llvm.func @nested(%{{.*}}: f32) {
// CHECK-NEXT:    %{{.*}} = arith.constant 7 : i32
// CHECK-NEXT:    "test.op"() ({
// CHECK-NEXT:      %{{.*}} = llvm.call @twice(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:      "test.termop"() : () -> ()
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    llvm.return
func.func @pair(%x: f32) -> (f32, f32) {
  func.return %x, %x : f32, f32
}
func.func @nested(%x: f32) {
  %unused = arith.constant 7 : i32
  "test.op"() ({
    %y = func.call @twice(%x) : (f32) -> f32
    "test.termop"() : () -> ()
  }) : () -> ()
  func.return
}
