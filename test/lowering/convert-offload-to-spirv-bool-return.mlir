// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s

// A returned bool is stored as the i32 word 1 or 0 (the host reads it as a u1).
// CHECK:      %b = spirv.SLessThan %{{.*}}, %z : i32
// CHECK:      %[[SLOT:.*]] = spirv.AccessChain
// CHECK-NEXT: %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT: %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT: %[[WORD:.*]] = spirv.Select %b, %[[ONE]], %[[ZERO]] : i1, i32
// CHECK-NEXT: spirv.Store "StorageBuffer" %[[SLOT]], %[[WORD]] : i32
offload.kernel @bool_return : (i32) -> (i1) {
  offload.serial {
    %a = offload.arg 0 : i32
    %z = spirv.Constant 0 : i32
    %b = spirv.SLessThan %a, %z : i32
    offload.set_return 0, %b : i1
  }
}
