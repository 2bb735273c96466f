// RUN: ti-opt %s -p convert-taichi-to-spirv | filecheck %s

// An adstack in a shader: an array and a count in Function variables, the count reset
// where the stack is made; push, top and pop as on the CPU (lowering/adstack.py).
// CHECK-LABEL: taichi.kernel @stack(%v: i32) {
// CHECK-NEXT:    %[[BUF:.*]] = spirv.Variable : !spirv.ptr<!spirv.array<2 x i32>, Function>
// CHECK-NEXT:    %[[COUNT:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:    %[[ZERO:.*]] = spirv.Constant 0 : i32
// CHECK-NEXT:    spirv.Store "Function" %[[COUNT]], %[[ZERO]] : i32
// CHECK-NEXT:    %[[N:.*]] = spirv.Load "Function" %[[COUNT]] : i32
// CHECK-NEXT:    %[[TWO:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:    %[[FITS:.*]] = spirv.ULessThan %[[N]], %[[TWO]] : i32
// CHECK-NEXT:    %[[LAST:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[I:.*]] = spirv.Select %[[FITS]], %[[N]], %[[LAST]] : i1, i32
// CHECK-NEXT:    %[[P:.*]] = spirv.AccessChain %[[BUF]][%[[I]]] : !spirv.ptr<!spirv.array<2 x i32>, Function>, i32 -> !spirv.ptr<i32, Function>
// CHECK-NEXT:    %[[OLD:.*]] = spirv.Load "Function" %[[P]] : i32
// CHECK-NEXT:    %[[KEPT:.*]] = spirv.Select %[[FITS]], %v, %[[OLD]] : i1, i32
// CHECK-NEXT:    spirv.Store "Function" %[[P]], %[[KEPT]] : i32
// CHECK-NEXT:    %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[GROWN:.*]] = spirv.IAdd %[[N]], %[[ONE]] : i32
// CHECK-NEXT:    spirv.Store "Function" %[[COUNT]], %[[GROWN]] : i32
// CHECK-NEXT:    %[[N2:.*]] = spirv.Load "Function" %[[COUNT]] : i32
// CHECK-NEXT:    %[[ONE2:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[TOP:.*]] = spirv.ISub %[[N2]], %[[ONE2]] : i32
// CHECK-NEXT:    %[[LAST2:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[TWO2:.*]] = spirv.Constant 2 : i32
// CHECK-NEXT:    %[[IN:.*]] = spirv.ULessThan %[[TOP]], %[[TWO2]] : i32
// CHECK-NEXT:    %[[J:.*]] = spirv.Select %[[IN]], %[[TOP]], %[[LAST2]] : i1, i32
// CHECK-NEXT:    %[[Q:.*]] = spirv.AccessChain %[[BUF]][%[[J]]] : !spirv.ptr<!spirv.array<2 x i32>, Function>, i32 -> !spirv.ptr<i32, Function>
// CHECK-NEXT:    %[[T:.*]] = spirv.Load "Function" %[[Q]] : i32
// CHECK-NEXT:    %[[N3:.*]] = spirv.Load "Function" %[[COUNT]] : i32
// CHECK-NEXT:    %[[ONE3:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:    %[[SHRUNK:.*]] = spirv.ISub %[[N3]], %[[ONE3]] : i32
// CHECK-NEXT:    spirv.Store "Function" %[[COUNT]], %[[SHRUNK]] : i32
// CHECK-NEXT:    %[[OUT:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:    spirv.Store "Function" %[[OUT]], %[[T]] : i32
// CHECK-NEXT:    %[[FLAG:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:    spirv.Store "Function" %[[FLAG]], %[[FITS]] : i1
taichi.kernel @stack(%v: i32) {
  %s = taichi.adstack_alloca : !taichi.adstack<i32, 2>
  %fits = taichi.adstack_push %s, %v : !taichi.adstack<i32, 2>
  %t = taichi.adstack_load_top %s : !taichi.adstack<i32, 2> -> i32
  taichi.adstack_pop %s : !taichi.adstack<i32, 2>
  %out = memref.alloca() : memref<i32>
  memref.store %t, %out[] : memref<i32>
  %flag = memref.alloca() : memref<i1>
  memref.store %fits, %flag[] : memref<i1>
  taichi.return
}
