// RUN: ti-opt %s --split-input-file --verify-diagnostics | filecheck %s

llvm.func @fptosi_from_int(%i: i32) {
  %0 = llvm_ext.fptosi %i : i32 to i32
  llvm.return
}
// CHECK: 'llvm_ext.fptosi' converts a float to an integer, got i32 to i32

// -----

llvm.func @uitofp_shape_mismatch(%v: vector<4xi32>) {
  %0 = llvm_ext.uitofp %v : vector<4xi32> to f32
  llvm.return
}
// CHECK: 'llvm_ext.uitofp' expects operand and result of the same shape, got vector<4xi32> to f32

// -----

llvm.func @atomicrmw_fadd_on_int(%p: !llvm.ptr, %i: i32) {
  %0 = llvm_ext.atomicrmw fadd %p, %i monotonic : !llvm.ptr, i32
  llvm.return
}
// CHECK: 'llvm_ext.atomicrmw' fadd expects a float, got i32

// -----

llvm.func @atomicrmw_add_on_float(%p: !llvm.ptr, %x: f32) {
  %0 = llvm_ext.atomicrmw add %p, %x monotonic : !llvm.ptr, f32
  llvm.return
}
// CHECK: 'llvm_ext.atomicrmw' add expects an integer, got f32

// -----

llvm.func @atomicrmw_unordered(%p: !llvm.ptr, %i: i32) {
  %0 = llvm_ext.atomicrmw add %p, %i unordered : !llvm.ptr, i32
  llvm.return
}
// CHECK: 'llvm_ext.atomicrmw' cannot be unordered

// -----

llvm.func @cmpxchg_release_failure(%p: !llvm.ptr, %i: i32) {
  %0 = llvm_ext.cmpxchg %p, %i, %i seq_cst release : !llvm.ptr, i32
  llvm.return
}
// CHECK: 'llvm_ext.cmpxchg' failure ordering cannot be release or acq_rel, got release

// -----

llvm.func @cmpxchg_float(%p: !llvm.ptr, %x: f32) {
  %0 = llvm_ext.cmpxchg %p, %x, %x seq_cst seq_cst : !llvm.ptr, f32
  llvm.return
}
// CHECK: 'llvm_ext.cmpxchg' expects an integer or a pointer, got f32

// -----

llvm.func @fence_monotonic() {
  llvm_ext.fence monotonic
  llvm.return
}
// CHECK: 'llvm_ext.fence' expects acquire, release, acq_rel or seq_cst, got monotonic

// -----

llvm.func @atomicrmw_xchg_on_vector(%p: !llvm.ptr, %v: vector<2xi32>) {
  %0 = llvm_ext.atomicrmw xchg %p, %v monotonic : !llvm.ptr, vector<2xi32>
  llvm.return
}
// CHECK: 'llvm_ext.atomicrmw' xchg expects an integer, float or pointer, got vector<2xi32>

// -----

// The result of a cmpxchg (spelled out in the generic form): the old value's type and i1.
llvm.func @cmpxchg_result_of_three(%p: !llvm.ptr, %i: i32) {
  %0 = "llvm_ext.cmpxchg"(%p, %i, %i) <{success_ordering = #llvm_ext<atomic_ordering seq_cst>, failure_ordering = #llvm_ext<atomic_ordering seq_cst>}> : (!llvm.ptr, i32, i32) -> !llvm.struct<(i32, i1, i1)>
  llvm.return
}
// CHECK: expected !llvm.struct<(T, i1)> of the operand type T, got !llvm.struct<(i32, i1, i1)>

// -----

llvm.func @cmpxchg_result_not_i1(%p: !llvm.ptr, %i: i32) {
  %0 = "llvm_ext.cmpxchg"(%p, %i, %i) <{success_ordering = #llvm_ext<atomic_ordering seq_cst>, failure_ordering = #llvm_ext<atomic_ordering seq_cst>}> : (!llvm.ptr, i32, i32) -> !llvm.struct<(i32, i32)>
  llvm.return
}
// CHECK: expected !llvm.struct<(T, i1)> of the operand type T, got !llvm.struct<(i32, i32)>

// -----

llvm.func @cmpxchg_result_of_another_type(%p: !llvm.ptr, %i: i32) {
  %0 = "llvm_ext.cmpxchg"(%p, %i, %i) <{success_ordering = #llvm_ext<atomic_ordering seq_cst>, failure_ordering = #llvm_ext<atomic_ordering seq_cst>}> : (!llvm.ptr, i32, i32) -> !llvm.struct<(i64, i1)>
  llvm.return
}
// CHECK: expected !llvm.struct<(T, i1)> of the operand type T, got !llvm.struct<(i64, i1)>
