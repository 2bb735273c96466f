// RUN: ti-opt %s -p ti-serial-simt | filecheck %s

// On CPU threads every invocation is a subgroup of one: reductions and inclusive scans
// give the value itself, exclusive scans the identity, shuffles and broadcasts the value,
// votes the test of the value, elect 1, the id 0 and the size 1; a subgroup barrier goes.
// CHECK-LABEL: taichi.kernel @one(%v: f32, %n: i32) -> i32 {
// CHECK-NEXT:    %[[MIN:.*]] = arith.constant 2147483647 : i32
// CHECK-NEXT:    %[[UMAX:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FMIN:.*]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:    %[[AND:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[MUL:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[NZ:.*]] = arith.cmpi ne, %n, %[[Z]] : i32
// CHECK-NEXT:    %[[ANY:.*]] = arith.extui %[[NZ]] : i1 to i32
// CHECK-NEXT:    %[[EQ:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[E:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[ID:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[SIZE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    taichi.print "{} {} {} {} {} {} {} {} {} {} {} {} {} {}" %v, %n, %[[MIN]], %[[UMAX]], %[[FMIN]], %[[AND]], %[[MUL]], %v, %n, %[[ANY]], %[[EQ]], %[[E]], %[[ID]], %[[SIZE]] : f32, i32, i32, i32, f32, i32, f32, f32, i32, i32, i32, i32, i32, i32
// CHECK-NEXT:    taichi.return %n : i32
taichi.kernel @one(%v: f32, %n: i32) -> i32 {
  %a = taichi.subgroup_reduce add reduce %v : f32
  %b = taichi.subgroup_reduce min inclusive %n : i32
  %c = taichi.subgroup_reduce min exclusive %n : i32
  %d = taichi.subgroup_reduce max exclusive unsigned %n : i32
  %e = taichi.subgroup_reduce min exclusive %v : f32
  %f = taichi.subgroup_reduce and exclusive %n : i32
  %g = taichi.subgroup_reduce mul exclusive %v : f32
  %h = taichi.subgroup_shuffle down %a, %n : f32
  %i = taichi.subgroup_broadcast_first %b : i32
  %j = taichi.subgroup_vote any %n : i32
  %k = taichi.subgroup_vote all_equal %v : f32
  %l = taichi.simt_id elect : i32
  %m = taichi.simt_id invocation_id : i32
  %o = taichi.simt_id group_size : i32
  taichi.barrier subgroup
  taichi.barrier subgroup memory_only
  taichi.print "{} {} {} {} {} {} {} {} {} {} {} {} {} {}" %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l, %m, %o : f32, i32, i32, i32, f32, i32, f32, f32, i32, i32, i32, i32, i32, i32
  taichi.return %b : i32
}

// The identity of every exclusive scan, by kind, signedness and width; a vote on an i1
// is its value widened.
// CHECK-LABEL: taichi.kernel @identities(%v: f32, %n: i32, %s: i8, %t: i1) -> i32 {
// CHECK-NEXT:    %[[UMIN:.*]] = arith.constant -1 : i32
// CHECK-NEXT:    %[[MAX:.*]] = arith.constant -2147483648 : i32
// CHECK-NEXT:    %[[ADD:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[IMUL:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[OR:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[XOR:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[FMAX:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    %[[FADD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[MIN8:.*]] = arith.constant 127 : i8
// CHECK-NEXT:    %[[MAX8:.*]] = arith.constant -128 : i8
// CHECK-NEXT:    %[[UMAX8:.*]] = arith.constant 0 : i8
// CHECK-NEXT:    %[[ALL:.*]] = arith.extui %t : i1 to i32
// CHECK-NEXT:    taichi.print "{} {} {} {} {} {} {} {} {} {} {} {}" %[[UMIN]], %[[MAX]], %[[ADD]], %[[IMUL]], %[[OR]], %[[XOR]], %[[FMAX]], %[[FADD]], %[[MIN8]], %[[MAX8]], %[[UMAX8]], %[[ALL]] : i32, i32, i32, i32, i32, i32, f32, f32, i8, i8, i8, i32
taichi.kernel @identities(%v: f32, %n: i32, %s: i8, %t: i1) -> i32 {
  %a = taichi.subgroup_reduce min exclusive unsigned %n : i32
  %b = taichi.subgroup_reduce max exclusive %n : i32
  %c = taichi.subgroup_reduce add exclusive %n : i32
  %d = taichi.subgroup_reduce mul exclusive %n : i32
  %e = taichi.subgroup_reduce or exclusive %n : i32
  %f = taichi.subgroup_reduce xor exclusive %n : i32
  %g = taichi.subgroup_reduce max exclusive %v : f32
  %h = taichi.subgroup_reduce add exclusive %v : f32
  %i = taichi.subgroup_reduce min exclusive %s : i8
  %j = taichi.subgroup_reduce max exclusive %s : i8
  %k = taichi.subgroup_reduce max exclusive unsigned %s : i8
  %l = taichi.subgroup_vote all %t : i1
  taichi.print "{} {} {} {} {} {} {} {} {} {} {} {}" %a, %b, %c, %d, %e, %f, %g, %h, %i, %j, %k, %l : i32, i32, i32, i32, i32, i32, f32, f32, i8, i8, i8, i32
  taichi.return %n : i32
}
