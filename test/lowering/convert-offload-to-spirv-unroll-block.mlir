// RUN: ti-opt %s -p 'convert-offload-to-spirv{unroll=2 unroll-layout=block}' | filecheck %s

// The block layout: workgroup w runs blocks 2w and 2w + 1 of LocalSize (128) elements,
// so an invocation starts at begin + (gid - local id) * (2 - 1) and its two copies are
// 128 apart (not a grid stride); the unrolled loop still steps 2 * stride, and the plain
// loop finishes the invocation's last block 128 apart. A launch shorter than 2 * stride
// (hi - lo < 2 * stride) keeps the stride layout: begin, copies and tail a stride apart.
// CHECK-LABEL:   spirv.func @copy__task0() "None" {
// CHECK:           %[[GID:.*]] = spirv.CompositeExtract %{{.*}}[0 : i32] : vector<3xi32>
// CHECK:           %[[LOCAL:.*]] = spirv.Constant 128 : i32
// CHECK-NEXT:      %[[STRIDE:.*]] = spirv.IMul %{{.*}}, %[[LOCAL]] : i32
// CHECK-NEXT:      %[[LO:.*]] = spirv.Constant 0 : i32
// CHECK:           %[[HI:.*]] = spirv.Load "StorageBuffer" %{{.*}} : i32
// CHECK-NEXT:      %[[BEGIN:.*]] = spirv.IAdd %[[LO]], %[[GID]] : i32
// CHECK-NEXT:      %[[LPTR:.*]] = spirv.mlir.addressof @local_id
// CHECK-NEXT:      %[[LVEC:.*]] = spirv.Load "Input" %[[LPTR]]
// CHECK-NEXT:      %[[LID:.*]] = spirv.CompositeExtract %[[LVEC]][0 : i32] : vector<3xi32>
// CHECK-NEXT:      %[[BASE:.*]] = spirv.ISub %[[GID]], %[[LID]] : i32
// CHECK-NEXT:      %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:      %[[EXTRA:.*]] = spirv.IMul %[[BASE]], %[[ONE]] : i32
// CHECK-NEXT:      %[[BSTART:.*]] = spirv.IAdd %[[BEGIN]], %[[EXTRA]] : i32
// CHECK-NEXT:      %[[LEN:.*]] = spirv.ISub %[[HI]], %[[LO]] : i32
// CHECK-NEXT:      %[[W:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:      %[[SPAN:.*]] = spirv.IMul %[[STRIDE]], %[[W]] : i32
// CHECK-NEXT:      %[[FULL:.*]] = spirv.SGreaterThanEqual %[[LEN]], %[[SPAN]] : i32
// CHECK-NEXT:      %[[START:.*]] = spirv.Select %[[FULL]], %[[BSTART]], %[[BEGIN]] : i1, i32
// CHECK-NEXT:      %[[SPACING:.*]] = spirv.Select %[[FULL]], %[[LOCAL]], %[[STRIDE]] : i1, i32
// CHECK-NEXT:      %[[ONE2:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:      %[[REACH:.*]] = spirv.IMul %[[SPACING]], %[[ONE2]] : i32
// CHECK-NEXT:      %[[LIMIT:.*]] = spirv.ISub %[[HI]], %[[REACH]] : i32
// CHECK-NEXT:      %[[TWO:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:      %[[STEP:.*]] = spirv.IMul %[[STRIDE]], %[[TWO]] : i32
// CHECK-NEXT:      %[[IV:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:      spirv.Store "Function" %[[IV]], %[[START]] : i32
// CHECK-NEXT:      spirv.mlir.loop {
// CHECK:             %[[I:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:        %{{.*}} = spirv.SLessThan %[[I]], %[[LIMIT]] : i32
// CHECK:             %[[K:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:        %[[S1:.*]] = spirv.IMul %[[SPACING]], %[[K]] : i32
// CHECK-NEXT:        %{{.*}} = spirv.IAdd %[[I]], %[[S1]] : i32
// CHECK:             %{{.*}} = spirv.IAdd %{{.*}}, %[[STEP]] : i32
// CHECK:           %[[REST:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK:           spirv.mlir.loop {
// CHECK:             %{{.*}} = spirv.SLessThan %{{.*}}, %[[HI]] : i32
// CHECK:             %{{.*}} = spirv.IAdd %{{.*}}, %[[SPACING]] : i32
// CHECK:           spirv.Return
// CHECK:         spirv.EntryPoint "GLCompute" @copy__task0, @gid, @nwg, @local_id
offload.kernel @copy : (memref<?xf32>, memref<?xf32>) -> () {
  %lo = arith.constant 0 : i32
  %n = offload.global_tmp 0 : memref<i32>
  %hi = memref.load %n[] : memref<i32>
  offload.range_for %i = %lo to %hi : i32 {
    %x = offload.arg 0 : memref<?xf32>
    %y = offload.arg 1 : memref<?xf32>
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    memref.store %v, %py[] : memref<f32>
  }
}
