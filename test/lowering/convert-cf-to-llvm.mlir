// RUN: ti-opt %s -p convert-cf-to-llvm | filecheck %s

// Branches keep their successors and block arguments, in order (the translator turns
// block arguments into phis).
// CHECK-LABEL: func.func @loop
// CHECK-SAME:    (%[[N:.*]]: i32) -> i32
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    llvm.br ^[[HEADER:.*]](%[[ZERO]], %[[ZERO]] : i32, i32)
// CHECK-NEXT:  ^[[HEADER]](%[[I:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK-NEXT:    %[[C:.*]] = arith.cmpi slt, %[[I]], %[[N]] : i32
// CHECK-NEXT:    llvm.cond_br %[[C]], ^[[BODY:.*]](%[[I]] : i32), ^[[EXIT:.*]](%[[ACC]] : i32)
// CHECK-NEXT:  ^[[BODY]](%[[J:.*]]: i32):
// CHECK-NEXT:    %[[ACC2:.*]] = arith.addi %[[ACC]], %[[J]] : i32
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[J]], %[[ONE]] : i32
// CHECK-NEXT:    llvm.br ^[[HEADER]](%[[NEXT]], %[[ACC2]] : i32, i32)
// CHECK-NEXT:  ^[[EXIT]](%[[R:.*]]: i32):
// CHECK-NEXT:    func.return %[[R]] : i32
func.func @loop(%n: i32) -> i32 {
  %zero = arith.constant 0 : i32
  cf.br ^header(%zero, %zero : i32, i32)
^header(%i: i32, %acc: i32):
  %c = arith.cmpi slt, %i, %n : i32
  cf.cond_br %c, ^body(%i : i32), ^exit(%acc : i32)
^body(%j: i32):
  %acc2 = arith.addi %acc, %j : i32
  %one = arith.constant 1 : i32
  %next = arith.addi %j, %one : i32
  cf.br ^header(%next, %acc2 : i32, i32)
^exit(%r: i32):
  func.return %r : i32
}

// Index block arguments become i64; unconverted users read them through a cast, and
// unconverted producers hand them over through one.
// CHECK-LABEL: func.func @index_block_args
// CHECK-SAME:    (%[[N:.*]]: index) -> index
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C0_I64:.*]] = builtin.unrealized_conversion_cast %[[C0]] : index to i64
// CHECK-NEXT:    llvm.br ^[[LOOP:.*]](%[[C0_I64]] : i64)
// CHECK-NEXT:  ^[[LOOP]](%[[I:.*]]: i64):
// CHECK-NEXT:    %[[I_INDEX:.*]] = builtin.unrealized_conversion_cast %[[I]] : i64 to index
// CHECK-NEXT:    %[[C:.*]] = arith.cmpi slt, %[[I_INDEX]], %[[N]] : index
// CHECK-NEXT:    %[[N_I64:.*]] = builtin.unrealized_conversion_cast %[[N]] : index to i64
// CHECK-NEXT:    llvm.cond_br %[[C]], ^[[LOOP]](%[[N_I64]] : i64), ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    func.return %[[I_INDEX]] : index
func.func @index_block_args(%n: index) -> index {
  %c0 = arith.constant 0 : index
  cf.br ^loop(%c0 : index)
^loop(%i: index):
  %c = arith.cmpi slt, %i, %n : index
  cf.cond_br %c, ^loop(%n : index), ^exit
^exit:
  func.return %i : index
}

// xDSL's llvm dialect has no switch: the pass must leave cf.switch alone.
// CHECK-LABEL: func.func @switch_untouched
// CHECK-NEXT:    cf.switch
func.func @switch_untouched(%x: i32, %a: f32) -> f32 {
  cf.switch %x : i32, [
    default: ^bb1(%a : f32),
    0: ^bb1(%a : f32)
  ]
^bb1(%r: f32):
  func.return %r : f32
}

// A conversion removes nothing it does not convert: an unused value stays (dce decides).
// CHECK-LABEL: func.func @unused_value_stays
// CHECK-NEXT:    %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    func.return
func.func @unused_value_stays(%a: i32) {
  %unused = arith.addi %a, %a : i32
  func.return
}
