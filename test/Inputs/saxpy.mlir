// saxpy on ndarrays in the taichi dialect, `for i in range(x.shape[0]): y[i] = a * x[i]
// + y[i]`: the one copy that the backend tests, the SPIR-V pipeline check and
// bench/cpu_launch.py compile (lit does not run files under Inputs/).
taichi.kernel @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %ni = arith.index_cast %n : index to i32
  taichi.range_for %i = %lo to %ni : i32 {
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<?xf32> -> memref<f32>
    %vx = memref.load %px[] : memref<f32>
    %vy = memref.load %py[] : memref<f32>
    %ax = arith.mulf %a, %vx : f32
    %r = arith.addf %ax, %vy : f32
    memref.store %r, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
