// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_atomic_float_add"}' | filecheck %s
// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none"}' | filecheck %s --check-prefix=CAS
// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="spirv_has_atomic_float_add+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic"}' | filecheck %s --check-prefix=SUBGROUP

taichi.field @x : memref<4x8xf32> offset 64
taichi.field @total : memref<f32> offset 0
taichi.field @words : memref<4xi32> offset 192

// A serial task: its own module, LocalSize 1, the body only on invocation 0. The
// argument is read from the argument buffer (binding 2), x[1, 2] is element
// 64 / 4 + 1 * 8 + 2 of the root seen as f32 (binding 0), the return value goes to
// binding 3.
// CHECK:       spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "serial_return", ti.task = 0 : i64} {
// CHECK-DAG:     spirv.GlobalVariable @returns_i32 bind(0, 3) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), Block>, StorageBuffer>
// CHECK-DAG:     spirv.GlobalVariable @root_f32 bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
// CHECK-DAG:     spirv.GlobalVariable @args_i32 bind(0, 2)
// CHECK-DAG:     spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
// The element accesses' integer constants (slot and chain indices, row length, the
// field's base) are made once, in the entry block, and shared.
// CHECK-LABEL:   spirv.func @serial_return__task0() "None" {
// CHECK-NEXT:      %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:      %[[ARGS:.*]] = spirv.mlir.addressof @args_i32
// CHECK-NEXT:      %[[EIGHT:.*]] = spirv.Constant 8 : i32
// CHECK-NEXT:      %[[BASE:.*]] = spirv.Constant 16 : i32
// CHECK-NEXT:      %[[ROOT:.*]] = spirv.mlir.addressof @root_f32
// CHECK-NEXT:      %[[RETS:.*]] = spirv.mlir.addressof @returns_i32
// CHECK-NEXT:      %[[GIDP:.*]] = spirv.mlir.addressof @gid
// CHECK-NEXT:      %[[GID:.*]] = spirv.Load "Input" %[[GIDP]] : vector<3xi32>
// CHECK-NEXT:      %[[GX:.*]] = spirv.CompositeExtract %[[GID]][0 : i32] : vector<3xi32>
// CHECK-NEXT:      %[[C0:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:      %[[NOT_FIRST:.*]] = spirv.INotEqual %[[GX]], %[[C0]] : i32
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[NOT_FIRST]], ^[[SKIP:.*]], ^[[GO:.*]]
// CHECK-NEXT:      ^[[SKIP]]:
// CHECK-NEXT:        spirv.Return
// CHECK-NEXT:      ^[[GO]]:
// CHECK-NEXT:        spirv.mlir.merge
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[AP:.*]] = spirv.AccessChain %[[ARGS]][%[[Z]], %[[Z]]]
// CHECK-NEXT:      %[[A:.*]] = spirv.Load "StorageBuffer" %[[AP]] : i32
// CHECK-NEXT:      %[[I:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:      %[[J:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:      %[[ROW:.*]] = spirv.IMul %[[I]], %[[EIGHT]] : i32
// CHECK-NEXT:      %[[LIN:.*]] = spirv.IAdd %[[ROW]], %[[J]] : i32
// CHECK-NEXT:      %[[K:.*]] = spirv.IAdd %[[LIN]], %[[BASE]] : i32
// CHECK-NEXT:      %[[P:.*]] = spirv.AccessChain %[[ROOT]][%[[Z]], %[[K]]] : {{.*}} -> !spirv.ptr<f32, StorageBuffer>
// CHECK-NEXT:      %[[V:.*]] = spirv.ConvertSToF %[[A]] : i32 to f32
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[P]], %[[V]] : f32
// CHECK-NEXT:      %[[RP:.*]] = spirv.AccessChain %[[RETS]][%[[Z]], %[[Z]]]
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[RP]], %[[A]] : i32
// CHECK-NEXT:      spirv.Return
// CHECK-NEXT:    }
// CHECK-NEXT:    spirv.EntryPoint "GLCompute" @serial_return__task0, @gid, @nwg
// CHECK-NEXT:    spirv.ExecutionMode @serial_return__task0 "LocalSize", 1, 1, 1
offload.kernel @serial_return : (i32) -> (i32) {
  offload.serial {
    %a = offload.arg 0 : i32
    %f = taichi.get_field @x : memref<4x8xf32>
    %i = spirv.Constant 1 : i32
    %j = spirv.Constant 2 : i32
    %p = taichi.element_ptr %f[%i, %j] : memref<4x8xf32> -> memref<f32>
    %v = spirv.ConvertSToF %a : i32 to f32
    memref.store %v, %p[] : memref<f32>
    offload.set_return 0, %a : i32
  }
}

// A range_for task: a grid-stride loop from lower + GlobalInvocationId.x to the upper
// bound read from the global temporaries (binding 1), stepping by NumWorkgroups.x * 128;
// the thread-local slot is one Function variable shared by prologue, body and epilogue;
// the ndarray is binding 6. The epilogue's float atomic add is native with the caps ...
// CHECK-LABEL:   spirv.func @reduce__task0() "None" {
// CHECK-NEXT:      %[[SLOT:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:      %[[GT:.*]] = spirv.mlir.addressof @gtmps_i32
// CHECK-NEXT:      %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:      %[[ACC:.*]] = spirv.Variable : !spirv.ptr<f32, Function>
// CHECK-NEXT:      %[[ARR:.*]] = spirv.mlir.addressof @arr0_f32
// CHECK-NEXT:      %[[ROOT:.*]] = spirv.mlir.addressof @root_f32
// CHECK:           %[[GX:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK:           %[[NX:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK-NEXT:      %[[LOCAL:.*]] = spirv.Constant 128 : i32
// CHECK-NEXT:      %[[STRIDE:.*]] = spirv.IMul %[[NX]], %[[LOCAL]] : i32
// CHECK-NEXT:      %[[LO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:      %[[HIP:.*]] = spirv.AccessChain %[[GT]][%[[Z]], %[[SLOT]]]
// CHECK-NEXT:      %[[HI:.*]] = spirv.Load "StorageBuffer" %[[HIP]] : i32
// CHECK-NEXT:      %[[BEGIN:.*]] = spirv.IAdd %[[LO]], %[[GX]] : i32
// CHECK-NEXT:      %[[ZERO:.*]] = spirv.Constant 0.000000e+00 : f32
// CHECK-NEXT:      spirv.Store "Function" %[[ACC]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[IV:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:      spirv.Store "Function" %[[IV]], %[[BEGIN]] : i32
// CHECK-NEXT:      spirv.mlir.loop {
// CHECK-NEXT:        spirv.Branch ^[[HEADER:.*]]
// CHECK-NEXT:      ^[[HEADER]]:
// CHECK-NEXT:        %[[I:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:        %[[LT:.*]] = spirv.SLessThan %[[I]], %[[HI]] : i32
// CHECK-NEXT:        spirv.BranchConditional %[[LT]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:      ^[[BODY]]:
// CHECK-NEXT:        %[[XP:.*]] = spirv.AccessChain %[[ARR]][%[[Z]], %[[I]]]
// CHECK-NEXT:        %[[X:.*]] = spirv.Load "StorageBuffer" %[[XP]] : f32
// CHECK-NEXT:        %[[OLD:.*]] = spirv.Load "Function" %[[ACC]] : f32
// CHECK-NEXT:        %[[NEW:.*]] = spirv.FAdd %[[OLD]], %[[X]] : f32
// CHECK-NEXT:        spirv.Store "Function" %[[ACC]], %[[NEW]] : f32
// CHECK-NEXT:        spirv.Branch ^[[CONT:.*]]
// CHECK-NEXT:      ^[[CONT]]:
// CHECK-NEXT:        %[[I2:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:        %[[NEXT:.*]] = spirv.IAdd %[[I2]], %[[STRIDE]] : i32
// CHECK-NEXT:        spirv.Store "Function" %[[IV]], %[[NEXT]] : i32
// CHECK-NEXT:        spirv.Branch ^[[HEADER]]
// CHECK-NEXT:      ^[[EXIT]]:
// CHECK-NEXT:        spirv.mlir.merge
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[S:.*]] = spirv.Load "Function" %[[ACC]] : f32
// CHECK-NEXT:      %[[TP:.*]] = spirv.AccessChain %[[ROOT]][%[[Z]], %[[Z]]]
// CHECK-NEXT:      %{{.*}} = spirv.EXT.AtomicFAdd <Device> <None> %[[TP]], %[[S]] : !spirv.ptr<f32, StorageBuffer>
// CHECK-NEXT:      spirv.Return

// With subgroup arithmetic, the epilogue combines in the workgroup first: the subgroup's
// sum goes from its elected invocation into a Workgroup array at its subgroup id; after a
// workgroup barrier the first subgroup's lanes below the subgroup count fold the partials
// (a loop where there are more subgroups than lanes), reduce them again, and one elected
// invocation adds the workgroup's total (one atomic a workgroup, not one an invocation).
// SUBGROUP:          spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, AtomicFloat32AddEXT, GroupNonUniform, GroupNonUniformArithmetic], [SPV_KHR_storage_buffer_storage_class, SPV_EXT_shader_atomic_float_add]> attributes {ti.kernel = "reduce"
// SUBGROUP-DAG:        spirv.GlobalVariable @subgroup_index built_in("SubgroupId") : !spirv.ptr<i32, Input>
// SUBGROUP-DAG:        spirv.GlobalVariable @num_subgroups built_in("NumSubgroups") : !spirv.ptr<i32, Input>
// SUBGROUP-DAG:        spirv.GlobalVariable @combine_0 : !spirv.ptr<!spirv.array<128 x f32>, Workgroup>
// SUBGROUP-LABEL:    spirv.func @reduce__task0() "None" {
// SUBGROUP:            spirv.mlir.merge
// SUBGROUP-NEXT:     }
// SUBGROUP-NEXT:     %[[S:.*]] = spirv.Load "Function" %{{.*}} : f32
// SUBGROUP:          %[[TP:.*]] = spirv.AccessChain
// SUBGROUP-NEXT:     %[[PART:.*]] = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %[[S]] : f32 -> f32
// SUBGROUP-NEXT:     %[[ONE:.*]] = spirv.GroupNonUniformElect <Subgroup> : i1
// SUBGROUP-NEXT:     %[[SGP:.*]] = spirv.mlir.addressof @subgroup_index
// SUBGROUP-NEXT:     %[[SG:.*]] = spirv.Load "Input" %[[SGP]] : i32
// SUBGROUP-NEXT:     spirv.mlir.selection {
// SUBGROUP-NEXT:       spirv.BranchConditional %[[ONE]], ^[[PUT:.*]], ^{{.*}}
// SUBGROUP-NEXT:     ^[[PUT]]:
// SUBGROUP-NEXT:       %[[A:.*]] = spirv.mlir.addressof @combine_0
// SUBGROUP-NEXT:       %[[SLOT:.*]] = spirv.AccessChain %[[A]][%[[SG]]]
// SUBGROUP-NEXT:       spirv.Store "Workgroup" %[[SLOT]], %[[PART]] : f32
// SUBGROUP:          spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
// SUBGROUP-NEXT:     %[[LANEP:.*]] = spirv.mlir.addressof @subgroup_invocation_id
// SUBGROUP-NEXT:     %[[LANE:.*]] = spirv.Load "Input" %[[LANEP]] : i32
// SUBGROUP-NEXT:     %[[NP:.*]] = spirv.mlir.addressof @num_subgroups
// SUBGROUP-NEXT:     %[[N:.*]] = spirv.Load "Input" %[[NP]] : i32
// SUBGROUP-NEXT:     %[[WP:.*]] = spirv.mlir.addressof @subgroup_size
// SUBGROUP-NEXT:     %[[W:.*]] = spirv.Load "Input" %[[WP]] : i32
// SUBGROUP-NEXT:     %[[Z:.*]] = spirv.Constant 0 : i32
// SUBGROUP-NEXT:     %[[FIRST:.*]] = spirv.IEqual %[[SG]], %[[Z]] : i32
// SUBGROUP-NEXT:     %[[HAS:.*]] = spirv.SLessThan %[[LANE]], %[[N]] : i32
// SUBGROUP-NEXT:     %[[READS:.*]] = spirv.LogicalAnd %[[FIRST]], %[[HAS]] : i1
// SUBGROUP-NEXT:     spirv.mlir.selection {
// SUBGROUP-NEXT:       spirv.BranchConditional %[[READS]], ^[[FOLD:.*]], ^{{.*}}
// SUBGROUP-NEXT:     ^[[FOLD]]:
// SUBGROUP-NEXT:       %[[A2:.*]] = spirv.mlir.addressof @combine_0
// SUBGROUP-NEXT:       %[[OWN:.*]] = spirv.AccessChain %[[A2]][%[[LANE]]]
// SUBGROUP-NEXT:       %[[PARTIAL:.*]] = spirv.Variable : !spirv.ptr<f32, Function>
// SUBGROUP-NEXT:       %[[V:.*]] = spirv.Load "Workgroup" %[[OWN]] : f32
// SUBGROUP-NEXT:       spirv.Store "Function" %[[PARTIAL]], %[[V]] : f32
// SUBGROUP-NEXT:       %[[NEXT:.*]] = spirv.IAdd %[[LANE]], %[[W]] : i32
// SUBGROUP-NEXT:       %[[J:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// SUBGROUP-NEXT:       spirv.Store "Function" %[[J]], %[[NEXT]] : i32
// SUBGROUP-NEXT:       spirv.mlir.loop {
// SUBGROUP:              %[[JV:.*]] = spirv.Load "Function" %[[J]] : i32
// SUBGROUP-NEXT:         %{{.*}} = spirv.SLessThan %[[JV]], %[[N]] : i32
// SUBGROUP:              %[[OTHER:.*]] = spirv.AccessChain %{{.*}}[%[[JV]]]
// SUBGROUP-NEXT:         %[[O:.*]] = spirv.Load "Workgroup" %[[OTHER]] : f32
// SUBGROUP-NEXT:         %[[R:.*]] = spirv.Load "Function" %[[PARTIAL]] : f32
// SUBGROUP-NEXT:         %[[SUM:.*]] = spirv.FAdd %[[R]], %[[O]] : f32
// SUBGROUP-NEXT:         spirv.Store "Function" %[[PARTIAL]], %[[SUM]] : f32
// SUBGROUP:              %{{.*}} = spirv.IAdd %{{.*}}, %[[W]] : i32
// SUBGROUP:            spirv.mlir.merge
// SUBGROUP-NEXT:       }
// SUBGROUP-NEXT:       %[[MINE:.*]] = spirv.Load "Function" %[[PARTIAL]] : f32
// SUBGROUP-NEXT:       %[[TOTAL:.*]] = spirv.GroupNonUniformFAdd <Subgroup> <Reduce> %[[MINE]] : f32 -> f32
// SUBGROUP-NEXT:       %[[LAST:.*]] = spirv.GroupNonUniformElect <Subgroup> : i1
// SUBGROUP-NEXT:       spirv.mlir.selection {
// SUBGROUP-NEXT:         spirv.BranchConditional %[[LAST]], ^[[ADD:.*]], ^{{.*}}
// SUBGROUP-NEXT:       ^[[ADD]]:
// SUBGROUP-NEXT:         %{{.*}} = spirv.EXT.AtomicFAdd <Device> <None> %[[TP]], %[[TOTAL]] : !spirv.ptr<f32, StorageBuffer>
// SUBGROUP-NOT:          spirv.EXT.AtomicFAdd
// SUBGROUP:            spirv.Return
// SUBGROUP:          spirv.EntryPoint "GLCompute" @reduce__task0, @gid, @nwg, @subgroup_index, @subgroup_invocation_id, @num_subgroups, @subgroup_size

// ... and a compare-and-swap loop on the bit pattern (the i32 view) without them.
// CAS:           spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> attributes {ti.kernel = "reduce"
// CAS-LABEL:     spirv.func @reduce__task0() "None" {
// CAS:               spirv.mlir.merge
// CAS-NEXT:        }
// CAS-NEXT:        %[[S:.*]] = spirv.Load "Function" %{{.*}} : f32
// CAS-NEXT:        %[[Z:.*]] = spirv.Constant 0 : i32
// CAS-NEXT:        %[[BITS:.*]] = spirv.AccessChain %{{.*}}[%[[Z]], %[[T0:.*]]] : {{.*}} -> !spirv.ptr<i32, StorageBuffer>
// CAS-NEXT:        %[[SEEN0:.*]] = spirv.Load "StorageBuffer" %[[BITS]] : i32
// CAS-NEXT:        spirv.mlir.loop {
// CAS-NEXT:          spirv.Branch ^[[CAS:.*]](%[[SEEN0]] : i32)
// CAS-NEXT:        ^[[CAS]](%[[EXPECTED:.*]]: i32):
// CAS-NEXT:          %[[OLD:.*]] = spirv.Bitcast %[[EXPECTED]] : i32 to f32
// CAS-NEXT:          spirv.Store "Function" %[[RESULT:.*]], %[[OLD]] : f32
// CAS-NEXT:          %[[SUM:.*]] = spirv.FAdd %[[OLD]], %[[S]] : f32
// CAS-NEXT:          %[[DESIRED:.*]] = spirv.Bitcast %[[SUM]] : f32 to i32
// CAS-NEXT:          %[[SEEN:.*]] = spirv.AtomicCompareExchange <Device> <None> <None> %[[BITS]], %[[DESIRED]], %[[EXPECTED]] : !spirv.ptr<i32, StorageBuffer>
// CAS-NEXT:          %[[DONE:.*]] = spirv.IEqual %[[SEEN]], %[[EXPECTED]] : i32
// CAS-NEXT:          spirv.BranchConditional %[[DONE]], ^[[MERGE:.*]], ^[[RETRY:.*]]
// CAS-NEXT:        ^[[RETRY]]:
// CAS-NEXT:          spirv.Branch ^[[CAS]](%[[SEEN]] : i32)
// CAS-NEXT:        ^[[MERGE]]:
// CAS-NEXT:          spirv.mlir.merge
// CAS-NEXT:        }
// CAS-NEXT:        spirv.Return
// CAS-NOT:         spirv.EXT.AtomicFAdd
offload.kernel @reduce : (memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %g = offload.global_tmp 4 : memref<i32>
  %hi = memref.load %g[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %acc = offload.thread_local 0 : memref<f32>
    %x = offload.arg 0 : memref<?xf32>
    %p = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %old = memref.load %acc[] : memref<f32>
    %new = spirv.FAdd %old, %v : f32
    memref.store %new, %acc[] : memref<f32>
  } prologue {
    %acc = offload.thread_local 0 : memref<f32>
    %zero = spirv.Constant 0.0 : f32
    memref.store %zero, %acc[] : memref<f32>
  } epilogue {
    %acc = offload.thread_local 0 : memref<f32>
    %s = memref.load %acc[] : memref<f32>
    %t = taichi.get_field @total : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %o = taichi.atomic_add %tp, %s : memref<f32>
  }
}

// Ops outside offload kernels are not this pass's business.
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NEXT:    func.return
func.func @not_a_kernel() {
  func.return
}

// A struct_for task (one that ti-demote-dense-struct-for left) visits the field's
// flattened indices with the grid-stride loop; the body's indices are recovered
// row-major: i = k / 8, j = k % 8 for a 4x8 field.
// CHECK-LABEL: spirv.func @visit__task0() "None" {
// CHECK:           %[[K:.*]] = spirv.Load "Function" %[[IV:.*]] : i32
// CHECK-NEXT:      %[[GO:.*]] = spirv.SLessThan %[[K]], %{{.*}} : i32
// CHECK-NEXT:      spirv.BranchConditional %[[GO]], ^[[BODY:.*]], ^{{.*}}
// CHECK-NEXT:    ^[[BODY]]:
// CHECK-NEXT:      %[[EIGHT:.*]] = spirv.Constant 8 : i32
// CHECK-NEXT:      %[[I:.*]] = spirv.SDiv %[[K]], %[[EIGHT]] : i32
// CHECK-NEXT:      %[[J:.*]] = spirv.SRem %[[K]], %[[EIGHT]] : i32
// CHECK:           spirv.Store "StorageBuffer" %{{.*}}, %[[I]] : i32
// CHECK-NEXT:      spirv.Store "StorageBuffer" %{{.*}}, %[[J]] : i32
offload.kernel @visit : () -> () {
  offload.struct_for @x : memref<4x8xf32> {
  ^bb0(%i: i32, %j: i32):
    %t = offload.global_tmp 0 : memref<i32>
    %u = offload.global_tmp 4 : memref<i32>
    memref.store %i, %t[] : memref<i32>
    memref.store %j, %u[] : memref<i32>
  }
}

// A compare-and-swap on a storage-buffer word is spirv.AtomicCompareExchange (the
// value to store first, then the one compared with); its result is the old word.
// CHECK-LABEL: spirv.func @compare_and_swap__task0
// CHECK:         %[[P:.*]] = spirv.AccessChain %{{.*}} -> !spirv.ptr<i32, StorageBuffer>
// CHECK-NEXT:    %[[E:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[N:.*]] = spirv.Constant -1 : i32
// CHECK-NEXT:    %{{.*}} = spirv.AtomicCompareExchange <Device> <None> <None> %[[P]], %[[N]], %[[E]] : !spirv.ptr<i32, StorageBuffer>
offload.kernel @compare_and_swap : () -> () {
  offload.serial {
    %w = taichi.get_field @words : memref<4xi32>
    %i = spirv.Constant 1 : i32
    %p = taichi.element_ptr %w[%i] : memref<4xi32> -> memref<i32>
    %e = spirv.Constant 0 : i32
    %n = spirv.Constant -1 : i32
    %old = taichi.atomic_cas %p, %e, %n : memref<i32>
  }
}
