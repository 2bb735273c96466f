// RUN: not ti-opt %s -p ti-serial-simt 2>&1 | filecheck %s

// A workgroup has no meaning on CPU threads (as under Taichi): the op's line is named.
taichi.kernel @sync() {
  taichi.barrier workgroup
  taichi.return
}
// CHECK: ti-serial-simt-invalid.mlir:{{[0-9]+}}:3: error: ti-serial-simt: ti.simt.block.sync() needs a GPU arch (vulkan); CPU threads have no workgroups
