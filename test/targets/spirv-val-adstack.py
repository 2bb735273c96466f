# REQUIRES: spirv-tools
# RUN: %python %s | filecheck %s

# The adjoint of a kernel whose serial loop carries locals (adstacks of f32 and i32,
# an always-checked push), lowered for Vulkan with the loop-exit checks of lavapipe,
# passes spirv-val (Vulkan 1.1 rules).

import subprocess
import tempfile

from taichi_xdsl.dialects import spirv
from taichi_xdsl.targets.spirv.serializer import serialize
from taichi_xdsl.utils import registry
from xdsl.parser import Parser

SOURCE = """
taichi.field @x : memref<8xf32> offset 0 {grad = @x_grad}
taichi.field @x_grad : memref<8xf32> offset 32
taichi.field @y : memref<8xf32> offset 64 {grad = @y_grad}
taichi.field @y_grad : memref<8xf32> offset 96
taichi.kernel @power(%n: i32) {
  %x = taichi.get_field @x : memref<8xf32>
  %y = taichi.get_field @y : memref<8xf32>
  %lo = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.000000e+00 : f32
  taichi.range_for %i = %lo to %c1 : i32 {
    %k = memref.alloca() : memref<i32>
    memref.store %lo, %k[] : memref<i32>
    %px = taichi.element_ptr %x[%i] : memref<8xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %s = memref.alloca() : memref<f32>
    memref.store %one, %s[] : memref<f32>
    taichi.range_for %j = %lo to %n : i32 {
      %old = memref.load %s[] : memref<f32>
      %kk = memref.load %k[] : memref<i32>
      %kf = arith.sitofp %kk : i32 to f32
      %new = arith.mulf %old, %v : f32
      %sum = arith.addf %new, %kf : f32
      memref.store %sum, %s[] : memref<f32>
      %k1 = arith.addi %kk, %c1 : i32
      memref.store %k1, %k[] : memref<i32>
      taichi.yield
    }
    %r = memref.load %s[] : memref<f32>
    %py = taichi.element_ptr %y[%i] : memref<8xf32> -> memref<f32>
    memref.store %r, %py[] : memref<f32>
    taichi.yield
  }
  taichi.return
}
"""

ctx = registry.make_context()
module = Parser(ctx, SOURCE).parse_module()
pipeline = (
    "ti-auto-diff{ad_stack_size=16},ti-to-offload,ti-guard-int-division,"
    "convert-taichi-to-spirv{check_loop_exits=true},convert-arith-to-spirv,"
    'convert-offload-to-spirv{caps="spirv_has_atomic_float_add"}'
)
registry.build_pipeline(pipeline).apply(ctx, module)
module.verify()
for op in module.body.block.ops:
    if not isinstance(op, spirv.ModuleOp):
        continue
    words = serialize(op)
    with tempfile.NamedTemporaryFile(suffix=".spv") as f:
        f.write(words)
        f.flush()
        result = subprocess.run(
            ["spirv-val", "--target-env", "vulkan1.1", f.name],
            capture_output=True,
            text=True,
            check=False,
        )
    kernel = op.attributes["ti.kernel"].data  # type: ignore[union-attr]
    task = op.attributes["ti.task"].value.data  # type: ignore[union-attr]
    asserts = [a.data[1].data for a in op.attributes.get("ti.asserts", [])]  # type: ignore[union-attr]
    status = "valid" if result.returncode == 0 else "INVALID " + result.stderr
    print(f"{kernel} task {task}: {status}; asserts: {sorted(set(asserts))}")

# CHECK:      power task 0: valid; asserts: ["a serial loop ended before its last iteration{{.*}}"]
# CHECK-NEXT: power_grad task 0: valid; asserts: ["a serial loop ended before its last iteration{{.*}}", "adstack overflow: a loop of kernel 'power' ran more than 16 iterations{{.*}}"]
