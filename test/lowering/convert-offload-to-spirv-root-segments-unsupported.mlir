// RUN: ti-opt %s -p 'convert-offload-to-spirv{caps="none" root-segment-bytes=1024}' --verify-diagnostics

// A field that crosses a segment boundary (bytes 960..1024+64) has no (segment, offset):
// the program's layout never makes one, a hand-written module is refused by name.
taichi.field @across : memref<32xf32> offset 960
offload.kernel @straddling_field : () -> () {
  offload.serial {
    %x = taichi.get_field @across : memref<32xf32>
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{field @across (128 bytes at root offset 960) straddles the root segments of 1024 bytes}}
    %p = taichi.element_ptr %x[%c0] : memref<32xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    memref.store %v, %p[] : memref<f32>
  }
}
