// RUN: ti-opt %s -p ti-lower-sparse,ti-offload | filecheck %s
// RUN: ti-opt %s -p ti-to-offload-cpu,ti-offload-to-llvm | filecheck %s --check-prefix=LLVM
// RUN: ti-opt %s -p ti-to-offload,ti-offload-to-spirv | filecheck %s --check-prefix=SPIRV

// A struct-for over a pointer SNode as the frontend emits it (codegen/sparse.py): clear
// the level's cell list, a parallel loop appends the active cells, a parallel loop up to
// the list's length visits them. After ti-lower-sparse, ti-offload makes the offload form
// that both conversions consume: a serial task clears the count, a range_for task
// generates the list, a serial task stores the length into a global temporary and the
// range_for task over the list takes its bound from it (read at launch time).
// CHECK-LABEL: offload.kernel @visit_active_cells
// CHECK-NEXT:    offload.serial {
// CHECK:           %[[L0:.*]] = taichi.get_field @ptr_cells : memref<5xi32>
// CHECK:           %[[C0:.*]] = taichi.element_ptr %[[L0]][%{{.*}}] : memref<5xi32> -> memref<i32>
// CHECK-NEXT:      memref.store %{{.*}}, %[[C0]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK:         offload.range_for %[[K:.*]] = %{{.*}} to %{{.*}} : i32 {
// CHECK:           taichi.if
// CHECK:             %[[SLOT:.*]] = taichi.atomic_add
// CHECK-NEXT:        %[[W:.*]] = arith.addi %[[SLOT]], %{{.*}} : i32
// CHECK-NEXT:        %[[E:.*]] = taichi.element_ptr %{{.*}}[%[[W]]] : memref<5xi32> -> memref<i32>
// CHECK-NEXT:        memref.store %[[K]], %[[E]][] : memref<i32>
// CHECK:         offload.serial {
// CHECK:           %[[N:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK-NEXT:      %[[G:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:      memref.store %[[N]], %[[G]][] : memref<i32>
// CHECK-NEXT:    }
// CHECK:         %[[G2:.*]] = offload.global_tmp 0 : memref<i32>
// CHECK-NEXT:    %[[HI:.*]] = memref.load %[[G2]][] : memref<i32>
// CHECK-NEXT:    offload.range_for %{{.*}} = %{{.*}} to %[[HI]] : i32 {

// One LLVM function and one SPIR-V module per task.
// LLVM: llvm.func @visit_active_cells__task0(
// LLVM: llvm.func @visit_active_cells__task1(
// LLVM: llvm.func @visit_active_cells__task2(
// LLVM: llvm.func @visit_active_cells__task3(
// SPIRV: spirv.func @visit_active_cells__task0()
// SPIRV: spirv.func @visit_active_cells__task1()
// SPIRV: spirv.func @visit_active_cells__task2()
// SPIRV: spirv.func @visit_active_cells__task3()
builtin.module attributes {taichi.snode_trees = [#taichi.snode<root [] axes [] children [
    #taichi.snode<pointer [4] axes [0] mask @ptr cells @ptr_cells places [@x]>]>]} {
  taichi.field @ptr : memref<4xi32> offset 0
  taichi.field @ptr_cells : memref<5xi32> offset 64
  taichi.field @x : memref<6xf32> offset 128
  taichi.kernel @visit_active_cells() {
    %m = taichi.get_field @ptr : memref<4xi32>
    %l = taichi.get_field @ptr_cells : memref<5xi32>
    %x = taichi.get_field @x : memref<6xf32>
    taichi.list_clear %l : memref<5xi32>
    %c0 = arith.constant 0 : i32
    %c4 = arith.constant 4 : i32
    taichi.range_for %k = %c0 to %c4 : i32 {
      %on = taichi.is_active %m[%k] : memref<4xi32>
      taichi.if %on {
        taichi.list_append %l, %k : memref<5xi32>
        taichi.yield
      }
      taichi.yield
    }
    %n = taichi.list_length %l : memref<5xi32>
    taichi.range_for %e = %c0 to %n : i32 {
      %cell = taichi.list_get %l[%e] : memref<5xi32>
      %w = taichi.element_ptr %m[%cell] : memref<4xi32> -> memref<i32>
      %b = memref.load %w[] : memref<i32>
      %p = taichi.element_ptr %x[%b] : memref<6xf32> -> memref<f32>
      %one = arith.constant 1.0 : f32
      %old = taichi.atomic_add %p, %one : memref<f32>
      taichi.yield
    }
    taichi.return
  }
}
