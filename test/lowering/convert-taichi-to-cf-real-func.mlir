// RUN: ti-opt %s -p convert-taichi-to-cf | filecheck %s

// In a real function (`func.func`) the structured control flow becomes blocks of the
// function's own region (no offload.cfg: a function's region takes blocks), ending in
// its func.return.

// CHECK-LABEL: func.func private @k__fn0_count(%n: i32) -> i32 {
// CHECK-NEXT:    %s = memref.alloca() : memref<i32>
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    memref.store %zero, %s[] : memref<i32>
// CHECK-NEXT:    %pos = arith.cmpi sgt, %n, %zero : i32
// CHECK-NEXT:    cf.cond_br %pos, ^[[THEN:.*]], ^[[JOIN:.*]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK-NEXT:    cf.br ^[[HEADER:.*]](%zero : i32)
// CHECK-NEXT:  ^[[HEADER]](%i: i32):
// CHECK-NEXT:    %[[GO:.*]] = arith.cmpi slt, %i, %n : i32
// CHECK-NEXT:    cf.cond_br %[[GO]], ^[[BODY:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NEXT:    %a = memref.load %s[] : memref<i32>
// CHECK-NEXT:    %b = arith.addi %a, %i : i32
// CHECK-NEXT:    memref.store %b, %s[] : memref<i32>
// CHECK-NEXT:    cf.br ^[[LATCH:.*]]
// CHECK-NEXT:  ^[[LATCH]]:
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %i, %[[ONE]] overflow<nsw> : i32
// CHECK-NEXT:    cf.br ^[[HEADER]](%[[NEXT]] : i32)
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    cf.br ^[[JOIN]]
// CHECK-NEXT:  ^[[JOIN]]:
// CHECK-NEXT:    %r = memref.load %s[] : memref<i32>
// CHECK-NEXT:    func.return %r : i32
// CHECK-NEXT:  }
func.func private @k__fn0_count(%n: i32) -> i32 {
  %s = memref.alloca() : memref<i32>
  %zero = arith.constant 0 : i32
  memref.store %zero, %s[] : memref<i32>
  %pos = arith.cmpi sgt, %n, %zero : i32
  taichi.if %pos {
    taichi.range_for %i = %zero to %n : i32 {
      %a = memref.load %s[] : memref<i32>
      %b = arith.addi %a, %i : i32
      memref.store %b, %s[] : memref<i32>
      taichi.yield
    }
    taichi.yield
  }
  %r = memref.load %s[] : memref<i32>
  func.return %r : i32
}

// A while loop's break goes past the loop, to the block of the func.return.
// CHECK-LABEL: func.func private @k__fn1_spin(%n: i32) -> i32 {
// CHECK-NEXT:    %zero = arith.constant 0 : i32
// CHECK-NEXT:    cf.br ^[[LOOP:.*]]
// CHECK-NEXT:  ^[[LOOP]]:
// CHECK-NEXT:    %stop = arith.cmpi sge, %zero, %n : i32
// CHECK-NEXT:    cf.cond_br %stop, ^[[BREAK:.*]], ^[[AGAIN:.*]]
// CHECK-NEXT:  ^[[BREAK]]:
// CHECK-NEXT:    cf.br ^[[AFTER:.*]]
// CHECK-NEXT:  ^[[AGAIN]]:
// CHECK-NEXT:    cf.br ^[[LOOP]]
// CHECK-NEXT:  ^[[AFTER]]:
// CHECK-NEXT:    func.return %zero : i32
// CHECK-NEXT:  }
func.func private @k__fn1_spin(%n: i32) -> i32 {
  %zero = arith.constant 0 : i32
  taichi.while {
    %stop = arith.cmpi sge, %zero, %n : i32
    taichi.if %stop {
      taichi.break
    }
    taichi.yield
  }
  func.return %zero : i32
}
