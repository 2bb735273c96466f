// RUN: ti-opt %s -p convert-offload-to-spirv | filecheck %s

// Without debug a plain assert goes, but an `always` one (ti-auto-diff's adstack
// overflow check) writes the error record (code 2, its message's id) when its condition
// is false; its message is the module's only ti.asserts entry.
// CHECK-LABEL: spirv.module {{.*}} attributes {ti.asserts = {{\[}}["0", "adstack overflow"]], ti.kernel = "guarded", ti.task = 0 : i64}
// CHECK:           %[[BAD:.*]] = spirv.LogicalNot %{{.*}} : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[BAD]]
// CHECK:             %[[CODE:.*]] = spirv.Constant 2 : i32
// CHECK:             spirv.AtomicCompareExchange <Device> <None> <None> %{{.*}}, %[[CODE]]
// CHECK:             spirv.Store "StorageBuffer" %{{.*}}, %{{.*}} : i32
// CHECK-NOT:       spirv.LogicalNot
// CHECK:           spirv.Return
offload.kernel @guarded : (i32) -> () {
  offload.serial {
    %n = offload.arg 0 : i32
    %four = spirv.Constant 4 : i32
    %ok = spirv.SLessThan %n, %four : i32
    taichi.assert %ok, "adstack overflow" always
    taichi.assert %ok, "debug only"
  }
}
