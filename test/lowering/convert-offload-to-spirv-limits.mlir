// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s
// RUN: ti-opt %s -p 'convert-offload-to-spirv{spread-groups=4}' | filecheck %s --check-prefix=SPREAD
// RUN: ti-opt %s -p 'convert-offload-to-spirv{debug=true}' | filecheck %s --check-prefix=DEBUG
// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_subgroup_basic"}' | filecheck %s --check-prefix=BASIC
// RUN: ti-opt %s -p 'convert-offload-to-spirv{unroll=2}' | filecheck %s --check-prefix=UNROLL

// The edges of the pass's choices: workgroup sizes, assert ids across tasks, the range
// of a struct_for, the subgroup caps a workgroup combine needs, the unroll limit.

// spread-groups=4: 1000..1064 is 64 iterations (not 2064): 32 a group; 512 iterations
// are exactly 4 groups of 128: kept; an empty range of constant length spreads too.
// Without the option an empty range keeps 128.
// SPREAD-DAG: spirv.ExecutionMode @shifted__task0 "LocalSize", 32, 1, 1
// SPREAD-DAG: spirv.ExecutionMode @shifted__task1 "LocalSize", 128, 1, 1
// SPREAD-DAG: spirv.ExecutionMode @shifted__task2 "LocalSize", 32, 1, 1
// CHECK-DAG:  spirv.ExecutionMode @shifted__task2 "LocalSize", 128, 1, 1
offload.kernel @shifted : () -> () {
  %c1000 = arith.constant 1000 : i32
  %c1064 = arith.constant 1064 : i32
  %c0 = arith.constant 0 : i32
  %c512 = arith.constant 512 : i32
  offload.range_for %i = %c1000 to %c1064 : i32 {
  }
  offload.range_for %i = %c0 to %c512 : i32 {
  }
  offload.range_for %i = %c0 to %c0 : i32 {
  }
}

// Assert ids count on from the kernel's earlier tasks.
// DEBUG: attributes {ti.asserts = {{\[}}["0", "first"]], ti.kernel = "checks", ti.task = 0 : i64}
// DEBUG: attributes {ti.asserts = {{\[}}["1", "second"], ["2", "third"]], ti.kernel = "checks", ti.task = 1 : i64}
offload.kernel @checks : (i32) -> () {
  offload.serial {
    %n = offload.arg 0 : i32
    %four = spirv.Constant 4 : i32
    %ok = spirv.SLessThan %n, %four : i32
    taichi.assert %ok, "first"
  }
  offload.serial {
    %n = offload.arg 0 : i32
    %four = spirv.Constant 4 : i32
    %ok = spirv.SLessThan %n, %four : i32
    taichi.assert %ok, "second"
    taichi.assert %ok, "third"
  }
}

// A struct_for visits the elements 0 .. 32 of its 4x8 field (an empty body uses no index).
// CHECK-LABEL: spirv.func @empty_struct_for__task0()
// CHECK:         %[[GX:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK:         %[[LO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[HI:.*]] = spirv.Constant 32 : i32
// CHECK-NEXT:    %{{.*}} = spirv.IAdd %[[LO]], %[[GX]] : i32
// CHECK:         spirv.SLessThan %{{.*}}, %[[HI]] : i32
offload.kernel @empty_struct_for : () -> () {
  offload.struct_for @x : memref<4x8xf32> {
  ^bb0(%a: i32, %b: i32):
  }
}
taichi.field @x : memref<4x8xf32> offset 0

// The workgroup combine needs subgroup arithmetic, not only the basic subgroup ops.
// BASIC-LABEL: spirv.func @reduce__task0()
// BASIC-NOT:     spirv.GroupNonUniform
// BASIC-NOT:     spirv.ControlBarrier
// BASIC:         spirv.AtomicIAdd <Device> <None>
// BASIC-NOT:     spirv.GroupNonUniform
// BASIC:         spirv.Return
offload.kernel @reduce : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 100000 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %m = offload.thread_local 0 : memref<i32>
    %old = memref.load %m[] : memref<i32>
    %new = spirv.IAdd %old, %i : i32
    memref.store %new, %m[] : memref<i32>
  } prologue {
    %m = offload.thread_local 0 : memref<i32>
    %c = spirv.Constant 0 : i32
    memref.store %c, %m[] : memref<i32>
  } epilogue {
    %m = offload.thread_local 0 : memref<i32>
    %v = memref.load %m[] : memref<i32>
    %f = taichi.get_field @total : memref<i32>
    %p = taichi.element_ptr %f[] : memref<i32> -> memref<i32>
    %o = taichi.atomic_add %p, %v : memref<i32>
  }
}
taichi.field @total : memref<i32> offset 128

// unroll=2 takes a body of at most 64 ops: 64 are unrolled (two %v60), 65 are not.
// UNROLL-LABEL: spirv.func @ops64__task0()
// UNROLL:         %v60 = spirv.FAdd %v59, %v59 : f32
// UNROLL-NEXT:    %v60_1 = spirv.FAdd %v59_1, %v59_1 : f32
// UNROLL-LABEL: spirv.func @ops65__task0()
// UNROLL-NOT:     %v60_1
// UNROLL:         %v61 = spirv.FAdd %v60, %v60 : f32
// UNROLL-NOT:     %v60_1
// UNROLL:         spirv.Return
offload.kernel @ops64 : (memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %g = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %g[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %p = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v0 = memref.load %p[] : memref<f32>
    %v1 = spirv.FAdd %v0, %v0 : f32
    %v2 = spirv.FAdd %v1, %v1 : f32
    %v3 = spirv.FAdd %v2, %v2 : f32
    %v4 = spirv.FAdd %v3, %v3 : f32
    %v5 = spirv.FAdd %v4, %v4 : f32
    %v6 = spirv.FAdd %v5, %v5 : f32
    %v7 = spirv.FAdd %v6, %v6 : f32
    %v8 = spirv.FAdd %v7, %v7 : f32
    %v9 = spirv.FAdd %v8, %v8 : f32
    %v10 = spirv.FAdd %v9, %v9 : f32
    %v11 = spirv.FAdd %v10, %v10 : f32
    %v12 = spirv.FAdd %v11, %v11 : f32
    %v13 = spirv.FAdd %v12, %v12 : f32
    %v14 = spirv.FAdd %v13, %v13 : f32
    %v15 = spirv.FAdd %v14, %v14 : f32
    %v16 = spirv.FAdd %v15, %v15 : f32
    %v17 = spirv.FAdd %v16, %v16 : f32
    %v18 = spirv.FAdd %v17, %v17 : f32
    %v19 = spirv.FAdd %v18, %v18 : f32
    %v20 = spirv.FAdd %v19, %v19 : f32
    %v21 = spirv.FAdd %v20, %v20 : f32
    %v22 = spirv.FAdd %v21, %v21 : f32
    %v23 = spirv.FAdd %v22, %v22 : f32
    %v24 = spirv.FAdd %v23, %v23 : f32
    %v25 = spirv.FAdd %v24, %v24 : f32
    %v26 = spirv.FAdd %v25, %v25 : f32
    %v27 = spirv.FAdd %v26, %v26 : f32
    %v28 = spirv.FAdd %v27, %v27 : f32
    %v29 = spirv.FAdd %v28, %v28 : f32
    %v30 = spirv.FAdd %v29, %v29 : f32
    %v31 = spirv.FAdd %v30, %v30 : f32
    %v32 = spirv.FAdd %v31, %v31 : f32
    %v33 = spirv.FAdd %v32, %v32 : f32
    %v34 = spirv.FAdd %v33, %v33 : f32
    %v35 = spirv.FAdd %v34, %v34 : f32
    %v36 = spirv.FAdd %v35, %v35 : f32
    %v37 = spirv.FAdd %v36, %v36 : f32
    %v38 = spirv.FAdd %v37, %v37 : f32
    %v39 = spirv.FAdd %v38, %v38 : f32
    %v40 = spirv.FAdd %v39, %v39 : f32
    %v41 = spirv.FAdd %v40, %v40 : f32
    %v42 = spirv.FAdd %v41, %v41 : f32
    %v43 = spirv.FAdd %v42, %v42 : f32
    %v44 = spirv.FAdd %v43, %v43 : f32
    %v45 = spirv.FAdd %v44, %v44 : f32
    %v46 = spirv.FAdd %v45, %v45 : f32
    %v47 = spirv.FAdd %v46, %v46 : f32
    %v48 = spirv.FAdd %v47, %v47 : f32
    %v49 = spirv.FAdd %v48, %v48 : f32
    %v50 = spirv.FAdd %v49, %v49 : f32
    %v51 = spirv.FAdd %v50, %v50 : f32
    %v52 = spirv.FAdd %v51, %v51 : f32
    %v53 = spirv.FAdd %v52, %v52 : f32
    %v54 = spirv.FAdd %v53, %v53 : f32
    %v55 = spirv.FAdd %v54, %v54 : f32
    %v56 = spirv.FAdd %v55, %v55 : f32
    %v57 = spirv.FAdd %v56, %v56 : f32
    %v58 = spirv.FAdd %v57, %v57 : f32
    %v59 = spirv.FAdd %v58, %v58 : f32
    %v60 = spirv.FAdd %v59, %v59 : f32
    memref.store %v60, %p[] : memref<f32>
  }
}
offload.kernel @ops65 : (memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %g = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %g[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %p = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v0 = memref.load %p[] : memref<f32>
    %v1 = spirv.FAdd %v0, %v0 : f32
    %v2 = spirv.FAdd %v1, %v1 : f32
    %v3 = spirv.FAdd %v2, %v2 : f32
    %v4 = spirv.FAdd %v3, %v3 : f32
    %v5 = spirv.FAdd %v4, %v4 : f32
    %v6 = spirv.FAdd %v5, %v5 : f32
    %v7 = spirv.FAdd %v6, %v6 : f32
    %v8 = spirv.FAdd %v7, %v7 : f32
    %v9 = spirv.FAdd %v8, %v8 : f32
    %v10 = spirv.FAdd %v9, %v9 : f32
    %v11 = spirv.FAdd %v10, %v10 : f32
    %v12 = spirv.FAdd %v11, %v11 : f32
    %v13 = spirv.FAdd %v12, %v12 : f32
    %v14 = spirv.FAdd %v13, %v13 : f32
    %v15 = spirv.FAdd %v14, %v14 : f32
    %v16 = spirv.FAdd %v15, %v15 : f32
    %v17 = spirv.FAdd %v16, %v16 : f32
    %v18 = spirv.FAdd %v17, %v17 : f32
    %v19 = spirv.FAdd %v18, %v18 : f32
    %v20 = spirv.FAdd %v19, %v19 : f32
    %v21 = spirv.FAdd %v20, %v20 : f32
    %v22 = spirv.FAdd %v21, %v21 : f32
    %v23 = spirv.FAdd %v22, %v22 : f32
    %v24 = spirv.FAdd %v23, %v23 : f32
    %v25 = spirv.FAdd %v24, %v24 : f32
    %v26 = spirv.FAdd %v25, %v25 : f32
    %v27 = spirv.FAdd %v26, %v26 : f32
    %v28 = spirv.FAdd %v27, %v27 : f32
    %v29 = spirv.FAdd %v28, %v28 : f32
    %v30 = spirv.FAdd %v29, %v29 : f32
    %v31 = spirv.FAdd %v30, %v30 : f32
    %v32 = spirv.FAdd %v31, %v31 : f32
    %v33 = spirv.FAdd %v32, %v32 : f32
    %v34 = spirv.FAdd %v33, %v33 : f32
    %v35 = spirv.FAdd %v34, %v34 : f32
    %v36 = spirv.FAdd %v35, %v35 : f32
    %v37 = spirv.FAdd %v36, %v36 : f32
    %v38 = spirv.FAdd %v37, %v37 : f32
    %v39 = spirv.FAdd %v38, %v38 : f32
    %v40 = spirv.FAdd %v39, %v39 : f32
    %v41 = spirv.FAdd %v40, %v40 : f32
    %v42 = spirv.FAdd %v41, %v41 : f32
    %v43 = spirv.FAdd %v42, %v42 : f32
    %v44 = spirv.FAdd %v43, %v43 : f32
    %v45 = spirv.FAdd %v44, %v44 : f32
    %v46 = spirv.FAdd %v45, %v45 : f32
    %v47 = spirv.FAdd %v46, %v46 : f32
    %v48 = spirv.FAdd %v47, %v47 : f32
    %v49 = spirv.FAdd %v48, %v48 : f32
    %v50 = spirv.FAdd %v49, %v49 : f32
    %v51 = spirv.FAdd %v50, %v50 : f32
    %v52 = spirv.FAdd %v51, %v51 : f32
    %v53 = spirv.FAdd %v52, %v52 : f32
    %v54 = spirv.FAdd %v53, %v53 : f32
    %v55 = spirv.FAdd %v54, %v54 : f32
    %v56 = spirv.FAdd %v55, %v55 : f32
    %v57 = spirv.FAdd %v56, %v56 : f32
    %v58 = spirv.FAdd %v57, %v57 : f32
    %v59 = spirv.FAdd %v58, %v58 : f32
    %v60 = spirv.FAdd %v59, %v59 : f32
    %v61 = spirv.FAdd %v60, %v60 : f32
    memref.store %v61, %p[] : memref<f32>
  }
}
