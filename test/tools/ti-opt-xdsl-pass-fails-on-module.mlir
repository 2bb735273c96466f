// RUN: not ti-opt %s -p 'stencil-shape-minimize{restrict=32}' 2>&1 | filecheck %s

// An xDSL pass that rejects the whole module, not one op (stencil-shape-minimize cannot
// restrict programs of one- and two-dimensional stencils together): its message names no
// op, and the module (implicit here) has no position: ti-opt points at the first op that
// has one (found by the ti-opt fuzzer, seed 607).

// CHECK-NOT: Traceback
// CHECK: error in pass 'stencil-shape-minimize' (xdsl.transforms.stencil_shape_minimize): Cannot restrict stencil programs with different dimensionality
// CHECK-NEXT: ti-opt-xdsl-pass-fails-on-module.mlir:[[# @LINE + 2]]:1: error: the pass failed on the module this `func.func` begins

func.func @one_d(%out: !stencil.field<[-4,68]xf64>, %in: !stencil.field<[-4,68]xf64>) {
  %tin = stencil.load %in : !stencil.field<[-4,68]xf64> -> !stencil.temp<[-1,65]xf64>
  %tout = stencil.apply(%arg = %tin : !stencil.temp<[-1,65]xf64>) -> (!stencil.temp<[0,64]xf64>) {
    %x = stencil.access %arg[-1] : !stencil.temp<[-1,65]xf64>
    stencil.return %x : f64
  }
  stencil.store %tout to %out(<[0], [64]>) : !stencil.temp<[0,64]xf64> to !stencil.field<[-4,68]xf64>
  func.return
}
func.func @two_d(%out: !stencil.field<[-4,68]x[-4,68]xf64>, %in: !stencil.field<[-4,68]x[-4,68]xf64>) {
  %tin = stencil.load %in : !stencil.field<[-4,68]x[-4,68]xf64> -> !stencil.temp<[-1,65]x[0,64]xf64>
  %tout = stencil.apply(%arg = %tin : !stencil.temp<[-1,65]x[0,64]xf64>) -> (!stencil.temp<[0,64]x[0,64]xf64>) {
    %x = stencil.access %arg[-1, 0] : !stencil.temp<[-1,65]x[0,64]xf64>
    stencil.return %x : f64
  }
  stencil.store %tout to %out(<[0, 0], [64, 64]>) : !stencil.temp<[0,64]x[0,64]xf64> to !stencil.field<[-4,68]x[-4,68]xf64>
  func.return
}
