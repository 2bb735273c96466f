# REQUIRES: spirv-tools
# RUN: %python %s | filecheck %s

# Every spirv.module that `ti-to-spirv` emits passes spirv-val (Vulkan 1.1 rules), for
# kernels that exercise each conversion: ndarrays and a dynamic bound, a float atomic
# (native and as a compare-and-swap loop), a thread-local reduction (also combined per
# subgroup; with a serial task fused into its last workgroup), range_for bodies run four
# iterations at a time, serial while/break, if/else and continue, print, 64-bit and boolean return
# values, a struct_for.

import subprocess
import tempfile
from pathlib import Path

from taichi_xdsl.dialects import spirv
from taichi_xdsl.targets.spirv.serializer import serialize
from taichi_xdsl.utils import registry
from xdsl.parser import Parser

SOURCE = """
taichi.field @x : memref<64x64xf32> offset 0
taichi.field @total : memref<f32> offset 16384

taichi.kernel @sum() {
  %x = taichi.get_field @x : memref<64x64xf32>
  %t = taichi.get_field @total : memref<f32>
  taichi.struct_for (%i, %j) in %x : memref<64x64xf32> {
    %p = taichi.element_ptr %x[%i, %j] : memref<64x64xf32> -> memref<f32>
    %v = memref.load %p[] : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_max %tp, %v : memref<f32>
    %old2 = taichi.atomic_add %tp, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}

taichi.kernel @total(%x: memref<?xf32>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %ni = arith.index_cast %n : index to i32
  %t = taichi.get_field @total : memref<f32>
  taichi.range_for %i = %lo to %ni : i32 {
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %tp, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}

taichi.kernel @fused(%x: memref<?xf32>) {
  %lo = arith.constant 0 : i32
  %zero = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %ni = arith.index_cast %n : index to i32
  %t = taichi.get_field @total : memref<f32>
  %tp0 = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
  memref.store %zero, %tp0[] : memref<f32>
  taichi.range_for %i = %lo to %ni : i32 {
    %px = taichi.element_ptr %x[%i] : memref<?xf32> -> memref<f32>
    %v = memref.load %px[] : memref<f32>
    %tp = taichi.element_ptr %t[] : memref<f32> -> memref<f32>
    %old = taichi.atomic_add %tp, %v : memref<f32>
    taichi.yield
  }
  taichi.return
}

taichi.kernel @control(%x: memref<?xi32>) {
  %lo = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xi32>
  %ni = arith.index_cast %n : index to i32
  taichi.range_for %i = %lo to %ni : i32 {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %p = taichi.element_ptr %x[%i] : memref<?xi32> -> memref<i32>
    %v0 = memref.load %p[] : memref<i32>
    %neg = arith.cmpi slt, %v0, %zero : i32
    taichi.if %neg {
      taichi.continue
    }
    %v = memref.alloca() : memref<i32>
    memref.store %v0, %v[] : memref<i32>
    taichi.while {
      %cur = memref.load %v[] : memref<i32>
      %done = arith.cmpi sle, %cur, %one : i32
      taichi.if %done {
        taichi.break
      } else {
        %h = arith.floordivsi %cur, %two : i32
        memref.store %h, %v[] : memref<i32>
        taichi.yield
      }
      taichi.yield
    }
    %r = memref.load %v[] : memref<i32>
    memref.store %r, %p[] : memref<i32>
    taichi.print "x[{}] = {}" %i, %r : i32, i32
    taichi.yield
  }
  taichi.return
}

taichi.kernel @mix(%a: i32, %b: f64, %c: i64, %d: i1) -> (i32, f64, i64, i1) {
  %one = arith.constant 1 : i32
  %a1 = arith.addi %a, %one : i32
  %b2 = math.sin %b : f64
  %cc = arith.muli %c, %c : i64
  %true = arith.constant true
  %nd = arith.xori %d, %true : i1
  taichi.print "b = {} c = {}" %b2, %cc : f64, i64
  taichi.return %a1, %b2, %cc, %nd : i32, f64, i64, i1
}
"""
SOURCE = (Path(__file__).parents[1] / "Inputs" / "saxpy.mlir").read_text() + SOURCE


def validate(caps: str, options: str = "") -> None:
    ctx = registry.make_context()
    module = Parser(ctx, SOURCE).parse_module()
    pipeline = (
        "ti-to-offload,ti-guard-int-division,ti-expand-f64-math,convert-taichi-to-spirv,"
        "convert-arith-to-spirv,"
        f'convert-offload-to-spirv{{caps="{caps}"{options}}}'
    )
    registry.build_pipeline(pipeline).apply(ctx, module)
    module.verify()
    for op in module.body.block.ops:
        if not isinstance(op, spirv.ModuleOp):
            continue
        with tempfile.NamedTemporaryFile(suffix=".spv") as f:
            f.write(serialize(op))
            f.flush()
            result = subprocess.run(
                ["spirv-val", "--target-env", "vulkan1.1", f.name],
                capture_output=True,
                text=True,
                check=False,
            )
        kernel = op.attributes["ti.kernel"].data  # type: ignore[union-attr]
        task = op.attributes["ti.task"].value.data  # type: ignore[union-attr]
        status = "valid" if result.returncode == 0 else "INVALID " + result.stderr
        print(f"{caps}: {kernel} task {task}: {status}")


validate("spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add")
validate("spirv_has_int64+spirv_has_float64")
# with the workgroup combine, straight-line range_for bodies unrolled and short
# launches spread over more, smaller groups, as on Vulkan
validate(
    "spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic",
    " unroll=4 fold-bounds=true spread-groups=128",
)

# CHECK:      spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: saxpy task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: saxpy task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: sum task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: total task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: total task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: fused task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: fused task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: control task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: control task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_atomic_float_add: mix task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: saxpy task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: saxpy task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: sum task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: total task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: total task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: fused task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: fused task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: control task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: control task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64: mix task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: saxpy task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: saxpy task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: sum task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: total task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: total task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: fused task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: fused task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: control task 0: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: control task 1: valid
# CHECK-NEXT: spirv_has_int64+spirv_has_float64+spirv_has_subgroup_basic+spirv_has_subgroup_arithmetic: mix task 0: valid
