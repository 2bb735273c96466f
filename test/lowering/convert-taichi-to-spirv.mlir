// RUN: ti-opt %s -p convert-taichi-to-spirv | filecheck %s

// An if/else becomes a selection; a local slot a Function variable.
// CHECK-LABEL: func.func @if_else
// CHECK-SAME:    (%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32) -> f32
// CHECK-NEXT:    %[[SLOT:.*]] = spirv.Variable : !spirv.ptr<f32, Function>
// CHECK-NEXT:    spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %[[C]], ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK-NEXT:    ^[[THEN]]:
// CHECK-NEXT:      spirv.Store "Function" %[[SLOT]], %[[A]] : f32
// CHECK-NEXT:      spirv.Branch ^[[MERGE:.*]]
// CHECK-NEXT:    ^[[ELSE]]:
// CHECK-NEXT:      spirv.Store "Function" %[[SLOT]], %[[B]] : f32
// CHECK-NEXT:      spirv.Branch ^[[MERGE]]
// CHECK-NEXT:    ^[[MERGE]]:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[R:.*]] = spirv.Load "Function" %[[SLOT]] : f32
// CHECK-NEXT:    func.return %[[R]] : f32
func.func @if_else(%c: i1, %a: f32, %b: f32) -> f32 {
  %slot = memref.alloca() : memref<f32>
  taichi.if %c {
    memref.store %a, %slot[] : memref<f32>
    taichi.yield
  } else {
    memref.store %b, %slot[] : memref<f32>
    taichi.yield
  }
  %r = memref.load %slot[] : memref<f32>
  func.return %r : f32
}

// A serial range_for with a break: an index variable, a break flag tested in the
// header, and the ops after the `if` that breaks guarded by the flag. The store to a
// global place (%acc) is not this pass's business: it stays a memref.store.
// CHECK-LABEL: func.func @loop_with_break
// CHECK-SAME:    (%[[LO:.*]]: i32, %[[HI:.*]]: i32, %[[STOP:.*]]: i32, %[[ACC:.*]]: memref<i32>)
// CHECK-NEXT:    %[[BRK:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:    %[[IV:.*]] = spirv.Variable : !spirv.ptr<i32, Function>
// CHECK-NEXT:    spirv.Store "Function" %[[IV]], %[[LO]] : i32
// CHECK-NEXT:    %[[FALSE:.*]] = spirv.Constant false
// CHECK-NEXT:    spirv.Store "Function" %[[BRK]], %[[FALSE]] : i1
// CHECK-NEXT:    spirv.mlir.loop {
// CHECK-NEXT:      spirv.Branch ^[[HEADER:.*]]
// CHECK-NEXT:    ^[[HEADER]]:
// CHECK-NEXT:      %[[I:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:      %[[LT:.*]] = spirv.SLessThan %[[I]], %[[HI]] : i32
// CHECK-NEXT:      %[[B0:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:      %[[NB:.*]] = spirv.LogicalNot %[[B0]] : i1
// CHECK-NEXT:      %[[GO:.*]] = spirv.LogicalAnd %[[LT]], %[[NB]] : i1
// CHECK-NEXT:      spirv.BranchConditional %[[GO]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:    ^[[BODY]]:
// CHECK-NEXT:      %[[DONE:.*]] = arith.cmpi eq, %[[I]], %[[STOP]] : i32
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[DONE]], ^[[SET:.*]], ^[[SETM:.*]]
// CHECK-NEXT:      ^[[SET]]:
// CHECK-NEXT:        %[[TRUE:.*]] = spirv.Constant true
// CHECK-NEXT:        spirv.Store "Function" %[[BRK]], %[[TRUE]] : i1
// CHECK-NEXT:        spirv.Branch ^[[SETM]]
// CHECK-NEXT:      ^[[SETM]]:
// CHECK-NEXT:        spirv.mlir.merge
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[B1:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:      %[[STAY:.*]] = spirv.LogicalNot %[[B1]] : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[STAY]], ^[[REST:.*]], ^[[RESTM:.*]]
// CHECK-NEXT:      ^[[REST]]:
// CHECK-NEXT:        memref.store %[[I]], %[[ACC]][] : memref<i32>
// CHECK-NEXT:        spirv.Branch ^[[RESTM]]
// CHECK-NEXT:      ^[[RESTM]]:
// CHECK-NEXT:        spirv.mlir.merge
// CHECK-NEXT:      }
// CHECK-NEXT:      spirv.Branch ^[[CONT:.*]]
// CHECK-NEXT:    ^[[CONT]]:
// CHECK-NEXT:      %[[I2:.*]] = spirv.Load "Function" %[[IV]] : i32
// CHECK-NEXT:      %[[ONE:.*]] = spirv.Constant 1 : i32
// CHECK-NEXT:      %[[NEXT:.*]] = spirv.IAdd %[[I2]], %[[ONE]] : i32
// CHECK-NEXT:      spirv.Store "Function" %[[IV]], %[[NEXT]] : i32
// CHECK-NEXT:      spirv.Branch ^[[HEADER]]
// CHECK-NEXT:    ^[[EXIT]]:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @loop_with_break(%lo: i32, %hi: i32, %stop: i32, %acc: memref<i32>) {
  taichi.range_for %i = %lo to %hi : i32 {
    %done = arith.cmpi eq, %i, %stop : i32
    taichi.if %done {
      taichi.break
    }
    memref.store %i, %acc[] : memref<i32>
    taichi.yield
  }
  func.return
}

// A break in an `if` nested in another: the ops after the inner `if` (still inside the
// outer one) are guarded by the flag too, not only those after the outer `if`.
// CHECK-LABEL: func.func @nested_break
// CHECK-SAME:    (%[[C:.*]]: i1, %[[D:.*]]: i1, %[[V:.*]]: i32, %[[INNER:.*]]: memref<i32>, %[[OUTER:.*]]: memref<i32>)
// CHECK-NEXT:    %[[BRK:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK:         spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %[[C]], ^[[THEN:.*]], ^{{.*}}
// CHECK-NEXT:    ^[[THEN]]:
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[D]], ^[[SET:.*]], ^{{.*}}
// CHECK-NEXT:      ^[[SET]]:
// CHECK-NEXT:        %[[TRUE:.*]] = spirv.Constant true
// CHECK-NEXT:        spirv.Store "Function" %[[BRK]], %[[TRUE]] : i1
// CHECK:           }
// CHECK-NEXT:      %[[B1:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:      %[[STAY1:.*]] = spirv.LogicalNot %[[B1]] : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[STAY1]], ^[[REST1:.*]], ^{{.*}}
// CHECK-NEXT:      ^[[REST1]]:
// CHECK-NEXT:        memref.store %[[V]], %[[INNER]][] : memref<i32>
// CHECK-NEXT:        spirv.Branch
// CHECK-NEXT:      ^{{.*}}:
// CHECK-NEXT:        spirv.mlir.merge
// CHECK-NEXT:      }
// CHECK-NEXT:      spirv.Branch
// CHECK-NEXT:    ^{{.*}}:
// CHECK-NEXT:      spirv.mlir.merge
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[B2:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:    %[[STAY2:.*]] = spirv.LogicalNot %[[B2]] : i1
// CHECK-NEXT:    spirv.mlir.selection {
// CHECK-NEXT:      spirv.BranchConditional %[[STAY2]], ^[[REST2:.*]], ^{{.*}}
// CHECK-NEXT:    ^[[REST2]]:
// CHECK-NEXT:      memref.store %[[V]], %[[OUTER]][] : memref<i32>
func.func @nested_break(%c: i1, %d: i1, %v: i32, %inner: memref<i32>, %outer: memref<i32>) {
  taichi.while {
    taichi.if %c {
      taichi.if %d {
        taichi.break
      }
      memref.store %v, %inner[] : memref<i32>
      taichi.yield
    }
    memref.store %v, %outer[] : memref<i32>
    taichi.yield
  }
  func.return
}

// A while loop runs until its break flag is set; a continue clears its flag at the top
// of each iteration and skips the rest of the body.
// CHECK-LABEL: func.func @while_continue
// CHECK-SAME:    (%[[C:.*]]: i1, %[[D:.*]]: i1, %[[V:.*]]: i32, %[[OUT:.*]]: memref<i32>)
// CHECK-NEXT:    %[[BRK:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:    %[[CNT:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:    %[[F:.*]] = spirv.Constant false
// CHECK-NEXT:    spirv.Store "Function" %[[BRK]], %[[F]] : i1
// CHECK-NEXT:    spirv.mlir.loop {
// CHECK-NEXT:      spirv.Branch ^[[HEADER:.*]]
// CHECK-NEXT:    ^[[HEADER]]:
// CHECK-NEXT:      %[[B:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:      %[[GO:.*]] = spirv.LogicalNot %[[B]] : i1
// CHECK-NEXT:      spirv.BranchConditional %[[GO]], ^[[BODY:.*]], ^{{.*}}
// CHECK-NEXT:    ^[[BODY]]:
// CHECK-NEXT:      %[[F2:.*]] = spirv.Constant false
// CHECK-NEXT:      spirv.Store "Function" %[[CNT]], %[[F2]] : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK:           spirv.Store "Function" %[[BRK]]
// CHECK:           %[[X:.*]] = spirv.Load "Function" %[[BRK]] : i1
// CHECK-NEXT:      %[[Y:.*]] = spirv.Load "Function" %[[CNT]] : i1
// CHECK-NEXT:      %[[EITHER:.*]] = spirv.LogicalOr %[[X]], %[[Y]] : i1
// CHECK-NEXT:      %[[NONE:.*]] = spirv.LogicalNot %[[EITHER]] : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[NONE]]
func.func @while_continue(%c: i1, %d: i1, %v: i32, %out: memref<i32>) {
  taichi.while {
    taichi.if %c {
      taichi.break
    }
    taichi.if %d {
      taichi.continue
    }
    memref.store %v, %out[] : memref<i32>
    taichi.yield
  }
  func.return
}

// A continue in a parallel task's body ends that iteration: a flag cleared at the top
// of the body guards the rest of it.
// CHECK-LABEL: offload.kernel @task_continue
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %[[CNT:.*]] = spirv.Variable : !spirv.ptr<i1, Function>
// CHECK-NEXT:      %[[F:.*]] = spirv.Constant false
// CHECK-NEXT:      spirv.Store "Function" %[[CNT]], %[[F]] : i1
// CHECK-NEXT:      %[[C:.*]] = offload.arg 0 : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK:           %[[L:.*]] = spirv.Load "Function" %[[CNT]] : i1
// CHECK-NEXT:      %[[N:.*]] = spirv.LogicalNot %[[L]] : i1
// CHECK-NEXT:      spirv.mlir.selection {
// CHECK-NEXT:        spirv.BranchConditional %[[N]]
offload.kernel @task_continue : (i1) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %c = offload.arg 0 : i1
    taichi.if %c {
      taichi.continue
    }
    %g = offload.global_tmp 0 : memref<i32>
    memref.store %i, %g[] : memref<i32>
  }
}

// Nothing structured and no local slot: the pass must not fire.
// CHECK-LABEL: func.func @nothing_to_do
// CHECK-NEXT:    %[[S:.*]] = arith.addi
// CHECK-NEXT:    memref.store %[[S]], %{{.*}}[] : memref<i32>
// CHECK-NEXT:    func.return
func.func @nothing_to_do(%a: i32, %out: memref<i32>) {
  %s = arith.addi %a, %a : i32
  memref.store %s, %out[] : memref<i32>
  func.return
}
