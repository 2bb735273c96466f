"""
The code generator: Python AST -> `taichi` dialect. `visitor.KernelCodegen` is the one
visitor; `expressions`, `calls`, `loops`, `vectors`, `structs`, `random` and `textures`
lower one kind of construct each, as functions taking the visitor; `emitter` and
`values` are the core they share. Imports point visitor -> construct modules -> core,
and from here to `..lang` (never back). It imports xDSL, so it loads on the first
kernel compilation, never on `import taichi_xdsl`.
"""
