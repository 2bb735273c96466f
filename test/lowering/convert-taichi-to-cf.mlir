// RUN: ti-opt %s -p convert-taichi-to-cf | filecheck %s

// An if/else: the task region becomes one offload.cfg; both branches join after it.
// CHECK-LABEL: offload.kernel @if_else
// CHECK-NEXT:    offload.serial {
// CHECK-NEXT:      offload.cfg {
// CHECK-NEXT:        %[[C:.*]] = offload.arg 0 : i1
// CHECK-NEXT:        cf.cond_br %[[C]], ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK-NEXT:      ^[[THEN]]:
// CHECK-NEXT:        %[[A:.*]] = arith.constant 1 : i32
// CHECK-NEXT:        cf.br ^[[JOIN:.*]]
// CHECK-NEXT:      ^[[ELSE]]:
// CHECK-NEXT:        %[[B:.*]] = arith.constant 2 : i32
// CHECK-NEXT:        cf.br ^[[JOIN]]
// CHECK-NEXT:      ^[[JOIN]]:
// CHECK-NEXT:        %[[D:.*]] = arith.constant 3 : i32
// CHECK-NEXT:        cf.br ^[[END:.*]]
// CHECK-NEXT:      ^[[END]]:
// CHECK-NEXT:        offload.cfg_exit
// CHECK-NEXT:      }
// CHECK-NEXT:    }
offload.kernel @if_else : (i1) -> () {
  offload.serial {
    %c = offload.arg 0 : i1
    taichi.if %c {
      %a = arith.constant 1 : i32
      taichi.yield
    } else {
      %b = arith.constant 2 : i32
      taichi.yield
    }
    %d = arith.constant 3 : i32
  }
}

// A serial inner loop keeps its index as the header's block argument; break leaves the
// loop, continue goes to the latch (index + 1).
// CHECK-LABEL: offload.kernel @inner_loop
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      offload.cfg {
// CHECK-NEXT:        %[[LO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:        %[[C:.*]] = arith.constant 5 : i32
// CHECK-NEXT:        cf.br ^[[HEADER:.*]](%[[LO]] : i32)
// CHECK-NEXT:      ^[[HEADER]](%[[J:.*]]: i32):
// CHECK-NEXT:        %[[GO:.*]] = arith.cmpi slt, %[[J]], %[[I]] : i32
// CHECK-NEXT:        cf.cond_br %[[GO]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:      ^[[BODY]]:
// CHECK-NEXT:        %[[STOP:.*]] = arith.cmpi eq, %[[J]], %[[C]] : i32
// CHECK-NEXT:        cf.cond_br %[[STOP]], ^[[BREAK:.*]], ^[[REST:.*]]
// CHECK-NEXT:      ^[[BREAK]]:
// CHECK-NEXT:        cf.br ^[[EXIT]]
// CHECK-NEXT:      ^[[REST]]:
// CHECK-NEXT:        %[[SKIP:.*]] = arith.cmpi slt, %[[J]], %[[C]] : i32
// CHECK-NEXT:        cf.cond_br %[[SKIP]], ^[[CONTINUE:.*]], ^[[PRINT:.*]]
// CHECK-NEXT:      ^[[CONTINUE]]:
// CHECK-NEXT:        cf.br ^[[LATCH:.*]]
// CHECK-NEXT:      ^[[PRINT]]:
// CHECK-NEXT:        taichi.print "j = {}" %[[J]] : i32
// CHECK-NEXT:        cf.br ^[[LATCH]]
// CHECK-NEXT:      ^[[LATCH]]:
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addi %[[J]], %[[ONE]] overflow<nsw> : i32
// CHECK-NEXT:        cf.br ^[[HEADER]](%[[NEXT]] : i32)
// CHECK-NEXT:      ^[[EXIT]]:
// CHECK-NEXT:        cf.br ^[[END:.*]]
// CHECK-NEXT:      ^[[END]]:
// CHECK-NEXT:        offload.cfg_exit
// CHECK-NEXT:      }
// CHECK-NEXT:    }
offload.kernel @inner_loop : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 16 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %lo_1 = arith.constant 0 : i32
    %c = arith.constant 5 : i32
    taichi.range_for %j = %lo_1 to %i : i32 {
      %stop = arith.cmpi eq, %j, %c : i32
      taichi.if %stop {
        taichi.break
      }
      %skip = arith.cmpi slt, %j, %c : i32
      taichi.if %skip {
        taichi.continue
      }
      taichi.print "j = {}" %j : i32
      taichi.yield
    }
  }
}

// A while loop: its body loops back to its first block, break goes past it. A continue
// of the range_for task itself ends the iteration: it goes to the cfg's exit.
// CHECK-LABEL: offload.kernel @while_and_task_continue
// CHECK:         offload.range_for %[[I:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      offload.cfg {
// CHECK-NEXT:        %[[C:.*]] = arith.constant 3 : i32
// CHECK-NEXT:        %[[SMALL:.*]] = arith.cmpi slt, %[[I]], %[[C]] : i32
// CHECK-NEXT:        cf.cond_br %[[SMALL]], ^[[SKIP:.*]], ^[[GO:.*]]
// CHECK-NEXT:      ^[[SKIP]]:
// CHECK-NEXT:        cf.br ^[[END:.*]]
// CHECK-NEXT:      ^[[GO]]:
// CHECK-NEXT:        cf.br ^[[LOOP:.*]]
// CHECK-NEXT:      ^[[LOOP]]:
// CHECK-NEXT:        %[[DONE:.*]] = offload.arg 0 : i1
// CHECK-NEXT:        cf.cond_br %[[DONE]], ^[[BREAK:.*]], ^[[AGAIN:.*]]
// CHECK-NEXT:      ^[[BREAK]]:
// CHECK-NEXT:        cf.br ^[[AFTER:.*]]
// CHECK-NEXT:      ^[[AGAIN]]:
// CHECK-NEXT:        cf.br ^[[LOOP]]
// CHECK-NEXT:      ^[[AFTER]]:
// CHECK-NEXT:        cf.br ^[[END]]
// CHECK-NEXT:      ^[[END]]:
// CHECK-NEXT:        offload.cfg_exit
// CHECK-NEXT:      }
// CHECK-NEXT:    }
offload.kernel @while_and_task_continue : (i1) -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 16 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %c = arith.constant 3 : i32
    %small = arith.cmpi slt, %i, %c : i32
    taichi.if %small {
      taichi.continue
    }
    taichi.while {
      %done = offload.arg 0 : i1
      taichi.if %done {
        taichi.break
      }
      taichi.yield
    }
  }
}

// Straight-line tasks and regions have no control flow: the pass must not fire.
// CHECK-LABEL: offload.kernel @straight_line
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    %{{.*}} = arith.constant 8 : i32
// CHECK-NEXT:    offload.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : i32
// CHECK-NEXT:    } prologue {
// CHECK-NEXT:      %{{.*}} = arith.constant 2 : i32
// CHECK-NEXT:    }
offload.kernel @straight_line : () -> () {
  %lo = arith.constant 0 : i32
  %hi = arith.constant 8 : i32
  offload.range_for %i = %lo to %hi : i32 {
    %a = arith.constant 1 : i32
  } prologue {
    %b = arith.constant 2 : i32
  }
}

// Control flow outside any task's flow graph (a kernel not yet offloaded) is left as it
// is: only an offload.cfg gives its blocks a region.
// CHECK-LABEL: taichi.kernel @not_offloaded
// CHECK-NEXT:    taichi.if %{{.*}} {
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : i32
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = arith.constant 0 : i32
// CHECK-NEXT:    taichi.range_for %{{.*}} = %{{.*}} to %{{.*}} : i32 {
// CHECK-NEXT:      taichi.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.while {
// CHECK-NEXT:      taichi.break
// CHECK-NEXT:    }
// CHECK-NEXT:    taichi.return
taichi.kernel @not_offloaded(%c: i1, %n: i32) {
  taichi.if %c {
    %a = arith.constant 1 : i32
    taichi.yield
  }
  %lo = arith.constant 0 : i32
  taichi.range_for %i = %lo to %n : i32 {
    taichi.yield
  }
  taichi.while {
    taichi.break
  }
  taichi.return
}
