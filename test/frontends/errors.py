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
# Taichi's layout: the file, line and function, the source line with carets under the
# construct, then the message.
# CHECK-NEXT: TaichiSyntaxError:
# CHECK-NEXT: File "{{.*}}errors.py", line [[LAMBDA]], in uses_lambda:
# CHECK-NEXT:     y = lambda t: t
# CHECK-NEXT:         ^^^^^^^^^^^
# CHECK-NEXT: unsupported syntax 'lambda'
# CHECK-NEXT: TaichiTypeError:
# CHECK-NEXT: File "{{.*}}errors.py", line [[BITWISE]], in float_bitwise:
# CHECK-NEXT:     return x & 1
# CHECK-NEXT:            ^^^^^
# CHECK-NEXT: unsupported operand type(s) for '&': 'f32' and 'i32' (bitwise operators need integers)
# CHECK-NEXT: TaichiSyntaxError:
# CHECK-NEXT: File "{{.*}}errors.py", line [[BREAK]], in parallel_break:
# CHECK-NEXT:             break
# CHECK-NEXT:             ^^^^^
# CHECK-NEXT: Cannot break in the outermost loop
