"""Print a function whose body nests `scf.if` regions N levels deep (argv[1])."""

import sys

depth = int(sys.argv[1])
print("func.func @nested(%c: i1, %p: memref<i32>) {")
print("  %v = arith.constant 1 : i32")
print("scf.if %c {\n" * depth, end="")
print("  memref.store %v, %p[] : memref<i32>")
print("}\n" * depth, end="")
print("  func.return\n}")
