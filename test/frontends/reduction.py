# RUN: %python %s | filecheck %s
# A sum reduction into a 0-d field: `for i in x` is a taichi.struct_for, x[None] is an
# element_ptr with no indices, and `+=` on a global place is a taichi.atomic_add
# (ti-demote-atomics / ti-make-thread-local decide later what stays atomic).

import taichi_xdsl as ti

ti.init(arch=ti.cpu)

x = ti.field(ti.f32, shape=1024, name="x")
total = ti.field(ti.f32, shape=(), name="total")


@ti.kernel
def reduce():
    for i in x:
        total[None] += x[i]


@ti.kernel
def reduce_range(n: ti.i32) -> ti.f32:
    s = 0.0
    for i in range(n):
        s += x[i] * 2
    return s


print(reduce.get_ir())
print(reduce_range.get_ir(16))

# Fields live in one root buffer at 64-byte-aligned offsets.
# CHECK:       taichi.field @x : memref<1024xf32> offset 0
# CHECK-NEXT:  taichi.field @total : memref<f32> offset 4096
# CHECK-LABEL: taichi.kernel @reduce() {
# CHECK-NEXT:    %[[X:.*]] = taichi.get_field @x : memref<1024xf32>
# CHECK-NEXT:    %[[T:.*]] = taichi.get_field @total : memref<f32>
# CHECK-NEXT:    taichi.struct_for (%[[I:.*]]) in %[[X]] : memref<1024xf32> {
# CHECK-NEXT:      %[[PX:.*]] = taichi.element_ptr %[[X]][%[[I]]] : memref<1024xf32> -> memref<f32>
# CHECK-NEXT:      %[[V:.*]] = memref.load %[[PX]][] : memref<f32>
# CHECK-NEXT:      %[[PT:.*]] = taichi.element_ptr %[[T]][] : memref<f32> -> memref<f32>
# CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[PT]], %[[V]] : memref<f32>
# CHECK-NEXT:      taichi.yield
# CHECK-NEXT:    }
# CHECK-NEXT:    taichi.return
# CHECK-NEXT:  }

# A local accumulator is a 0-d alloca shared by the parallel loop's iterations: `+=` on
# it is an atomic, as in Taichi (ti-make-thread-local makes it a per-thread reduction).
# CHECK-LABEL: taichi.kernel @reduce_range
# CHECK-SAME:    (%[[N:.*]]: i32) -> f32 {
# CHECK-NEXT:    %[[X2:.*]] = taichi.get_field @x : memref<1024xf32>
# CHECK-NEXT:    %[[S:.*]] = memref.alloca() : memref<f32>
# CHECK-NEXT:    %[[ZF:.*]] = arith.constant 0.000000e+00 : f32
# CHECK-NEXT:    memref.store %[[ZF]], %[[S]][] : memref<f32>
# CHECK-NEXT:    %[[ZI:.*]] = arith.constant 0 : i32
# CHECK-NEXT:    taichi.range_for %[[I2:.*]] = %[[ZI]] to %[[N]] : i32 {
# CHECK-NEXT:      %[[P:.*]] = taichi.element_ptr %[[X2]][%[[I2]]] : memref<1024xf32> -> memref<f32>
# CHECK-NEXT:      %[[V2:.*]] = memref.load %[[P]][] : memref<f32>
# CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
# CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[V2]], %[[TWO]] : f32
# CHECK-NEXT:      %{{.*}} = taichi.atomic_add %[[S]], %[[D]] : memref<f32>
# CHECK-NEXT:      taichi.yield
# CHECK-NEXT:    }
# CHECK-NEXT:    %[[R:.*]] = memref.load %[[S]][] : memref<f32>
# CHECK-NEXT:    taichi.return %[[R]] : f32
# CHECK-NEXT:  }
