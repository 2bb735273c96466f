# RUN: %python %s | filecheck %s
# Unsupported syntax and type errors name the file and line, show the source line with
# a caret, and say what is wrong; the program keeps working afterwards. The script
# prints the numbers of the lines marked `# L:<name>` first.

import re

import taichi_xdsl as ti

ti.init(arch=ti.cpu)


@ti.kernel
def uses_lambda():
    y = lambda t: t  # noqa: F841  # L:lambda


@ti.kernel
def float_bitwise(x: ti.f32) -> ti.i32:
    return x & 1  # L:bitwise


@ti.kernel
def parallel_break():
    for i in range(10):
        if i > 3:
            break  # L:break


with open(__file__) as source:
    for number, line in enumerate(source, 1):
        marker = re.search(r"# L:(\w+)$", line.rstrip())
        if marker:
            print(f"{marker.group(1)}={number}")

for kernel, args in ((uses_lambda, ()), (float_bitwise, (1.0,)), (parallel_break, ())):
    try:
        kernel.get_ir(*args)
    except ti.TaichiCompilationError as e:
        print(f"{type(e).__name__}: {e}")

# CHECK:      lambda=[[LAMBDA:[0-9]+]]
# CHECK-NEXT: bitwise=[[BITWISE:[0-9]+]]
# CHECK-NEXT: break=[[BREAK:[0-9]+]]
# CHECK-NEXT: TaichiSyntaxError: {{.*}}errors.py:[[LAMBDA]]: unsupported syntax 'lambda'
# CHECK-NEXT:     y = lambda t: t
# CHECK-NEXT:         ^
# CHECK-NEXT: TaichiTypeError: {{.*}}errors.py:[[BITWISE]]: bitwise '&' needs integers, got f32 and f32
# CHECK-NEXT:     return x & 1
# CHECK-NEXT:            ^
# CHECK-NEXT: TaichiSyntaxError: {{.*}}errors.py:[[BREAK]]: 'break' in a parallel loop
# CHECK-NEXT:     break
# CHECK-NEXT:     ^
