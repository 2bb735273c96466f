// RUN: ti-opt %s -p 'convert-offload-to-spirv{debug=true}' | filecheck %s

// The error record (binding 5, utils/spirv_abi.py) word by word: word 0 is the code
// swapped from 0, words 1, 2, 3 the payload. A skipped read of an i32 yields 0. Each
// assert of a task has its own message id (0, 1, ... in the ti.asserts table); its
// record is (id, 0, 0). A checked access's `file:line:column` is in the table too
// (id 0 here): its record's word 1 is (id + 1) << 8 | dim.
taichi.field @n : memref<4xi32> offset 0

// CHECK-LABEL: spirv.module {{.*}} attributes {ti.asserts = {{\[}}["0", "{{.*}}convert-offload-to-spirv-debug-record.mlir:[[# @LINE + 44]]:5"], ["1", "n must be positive"], ["2", "n must be small"]]
// The record's word indices are made once, in the entry block.
// CHECK:       %[[Z:.*]] = spirv.Constant 0 : i32
// CHECK:       %[[ERR:.*]] = spirv.mlir.addressof @error_i32
// CHECK-NEXT:  %[[W1:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:  %[[W2:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:  %[[W3:.*]] = spirv.Constant 3 : i32
// CHECK-NEXT:  %[[SLOT:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK:       %[[I:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK:       %[[EXTENT:.*]] = spirv.Constant 4 : i32
// CHECK-NEXT:  %[[OK:.*]] = spirv.ULessThan %[[I]], %[[EXTENT]] : i32
// CHECK-NEXT:  %[[DIM:.*]] = spirv.Constant 256 : i32
// CHECK:       ^{{.*}}:
// CHECK:         %[[CODE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[FREE:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    %[[P0:.*]] = spirv.AccessChain %[[ERR]][%[[Z]], %[[Z]]]
// CHECK-NEXT:    spirv.AtomicCompareExchange <Device> <None> <None> %[[P0]], %[[CODE]], %[[FREE]]
// CHECK:           %[[P1:.*]] = spirv.AccessChain %[[ERR]][%[[Z]], %[[W1]]]
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[P1]], %[[DIM]] : i32
// CHECK-NEXT:      %[[P2:.*]] = spirv.AccessChain %[[ERR]][%[[Z]], %[[W2]]]
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[P2]], %[[I]] : i32
// CHECK-NEXT:      %[[P3:.*]] = spirv.AccessChain %[[ERR]][%[[Z]], %[[W3]]]
// CHECK-NEXT:      spirv.Store "StorageBuffer" %[[P3]], %[[EXTENT]] : i32
// CHECK:         %[[SKIPPED:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    spirv.Store "Function" %[[SLOT]], %[[SKIPPED]] : i32
// The asserts: ids 1 and 2, then zeros.
// CHECK:       spirv.SGreaterThan
// CHECK-NEXT:  %[[ID0:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:  %[[ZERO0:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:  spirv.LogicalNot
// CHECK:           spirv.Store "StorageBuffer" %{{.*}}, %[[ID0]] : i32
// CHECK:           spirv.Store "StorageBuffer" %{{.*}}, %[[ZERO0]] : i32
// CHECK:           spirv.Store "StorageBuffer" %{{.*}}, %[[ZERO0]] : i32
// CHECK:       spirv.SLessThan
// CHECK-NEXT:  %[[ID1:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:  %[[ZERO1:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:  spirv.LogicalNot
// CHECK:           spirv.Store "StorageBuffer" %{{.*}}, %[[ID1]] : i32
// CHECK:           spirv.Store "StorageBuffer" %{{.*}}, %[[ZERO1]] : i32
// CHECK:           spirv.Store "StorageBuffer" %{{.*}}, %[[ZERO1]] : i32
offload.kernel @records : (i32) -> () {
  offload.serial {
    %i = offload.arg 0 : i32
    %n = taichi.get_field @n : memref<4xi32>
    %p = taichi.element_ptr %n[%i] : memref<4xi32> -> memref<i32>
    %v = memref.load %p[] : memref<i32>
    %z = spirv.Constant 0 : i32
    %positive = spirv.SGreaterThan %v, %z : i32
    taichi.assert %positive, "n must be positive"
    %k = spirv.Constant 100 : i32
    %small = spirv.SLessThan %v, %k : i32
    taichi.assert %small, "n must be small"
  }
}
