"""
The code generator: Python AST -> `taichi` dialect. `visitor.KernelCodegen` walks a
kernel's AST; the other modules lower one kind of construct each. It imports xDSL, so it
loads on the first kernel compilation, never on `import taichi_xdsl`.
"""
