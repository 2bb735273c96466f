// RUN: ti-opt %s -p ti-spirv-hoist | filecheck %s

// Two unrolled copies of `acc += rsqrt(x[j])`: the second copy's address, load and
// rsqrt move above the first copy's Function-variable update, in their order; the
// updates keep theirs (the variable's declaration stays with them: the serializer puts
// declarations first).
// CHECK-LABEL: spirv.func @copies
// CHECK:         %[[A:.*]] = spirv.Load "StorageBuffer" %{{.*}} : f32
// CHECK-NEXT:    %[[R:.*]] = spirv.GL.InverseSqrt %[[A]] : f32
// CHECK-NEXT:    %[[C1:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[K:.*]] = spirv.IAdd %{{.*}}, %[[C1]] : i32
// CHECK-NEXT:    %[[P1:.*]] = spirv.AccessChain %{{.*}}[%{{.*}}, %[[K]]]
// CHECK-NEXT:    %[[B:.*]] = spirv.Load "StorageBuffer" %[[P1]] : f32
// CHECK-NEXT:    %[[Q:.*]] = spirv.GL.InverseSqrt %[[B]] : f32
// CHECK-NEXT:    %[[ACC:.*]] = spirv.Variable : !spirv.ptr<f32, Function>
// CHECK-NEXT:    %[[X:.*]] = spirv.Load "Function" %[[ACC]] : f32
// CHECK-NEXT:    %[[S:.*]] = spirv.FAdd %[[X]], %[[R]] : f32
// CHECK-NEXT:    spirv.Store "Function" %[[ACC]], %[[S]] : f32
// CHECK-NEXT:    %[[Y:.*]] = spirv.Load "Function" %[[ACC]] : f32
// CHECK-NEXT:    %[[T:.*]] = spirv.FAdd %[[Y]], %[[Q]] : f32
// CHECK-NEXT:    spirv.Store "Function" %[[ACC]], %[[T]] : f32
// CHECK-NEXT:    spirv.Return

// A buffer store is a fence for loads: the load after it stays after it (it may read
// what the store wrote), while pure arithmetic that does not need the load moves up.
// CHECK-LABEL: spirv.func @fence
// CHECK:         %[[M:.*]] = spirv.FMul %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:    spirv.Store "StorageBuffer" %[[P:.*]], %{{.*}} : f32
// CHECK-NEXT:    %[[L:.*]] = spirv.Load "StorageBuffer" %[[P]] : f32
// CHECK-NEXT:    %{{.*}} = spirv.FAdd %[[L]], %[[M]] : f32

// A Volatile load and anything with regions stay in place; loads do not cross a loop.
// CHECK-LABEL: spirv.func @stays
// CHECK:         spirv.Store "Function"
// CHECK-NEXT:    %{{.*}} = spirv.Load "StorageBuffer" %{{.*}} ["Volatile"] : f32
// CHECK-NEXT:    spirv.mlir.loop {
// CHECK:         }
// CHECK-NEXT:    %{{.*}} = spirv.Load "StorageBuffer" %{{.*}} : f32
spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  spirv.func @copies() "None" {
    %acc = spirv.Variable : !spirv.ptr<f32, Function>
    %buf = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %c0 = spirv.Constant 0 : i32
    %j = spirv.Constant 5 : i32
    %p0 = spirv.AccessChain %buf[%c0, %j] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %a = spirv.Load "StorageBuffer" %p0 : f32
    %r = spirv.GL.InverseSqrt %a : f32
    %x = spirv.Load "Function" %acc : f32
    %s = spirv.FAdd %x, %r : f32
    spirv.Store "Function" %acc, %s : f32
    %c1 = spirv.Constant 1 : i32
    %k = spirv.IAdd %j, %c1 : i32
    %p1 = spirv.AccessChain %buf[%c0, %k] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %b = spirv.Load "StorageBuffer" %p1 : f32
    %q = spirv.GL.InverseSqrt %b : f32
    %y = spirv.Load "Function" %acc : f32
    %t = spirv.FAdd %y, %q : f32
    spirv.Store "Function" %acc, %t : f32
    spirv.Return
  }
  spirv.func @fence() "None" {
    %buf = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %c0 = spirv.Constant 0 : i32
    %v = spirv.Constant 2.0 : f32
    %p = spirv.AccessChain %buf[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "StorageBuffer" %p, %v : f32
    %l = spirv.Load "StorageBuffer" %p : f32
    %m = spirv.FMul %v, %v : f32
    %n = spirv.FAdd %l, %m : f32
    spirv.Return
  }
  spirv.func @stays() "None" {
    %acc = spirv.Variable : !spirv.ptr<f32, Function>
    %buf = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %c0 = spirv.Constant 0 : i32
    %v = spirv.Constant 2.0 : f32
    %p = spirv.AccessChain %buf[%c0, %c0] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
    spirv.Store "Function" %acc, %v : f32
    %w = spirv.Load "StorageBuffer" %p ["Volatile"] : f32
    spirv.mlir.loop {
      spirv.Branch ^bb1
    ^bb1:
      %f = spirv.Constant false
      spirv.BranchConditional %f, ^bb2, ^bb3
    ^bb2:
      spirv.Branch ^bb1
    ^bb3:
      spirv.mlir.merge
    }
    %l = spirv.Load "StorageBuffer" %p : f32
    spirv.Return
  }
}
