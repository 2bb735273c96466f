"""
The Python frontend: Taichi's kernel language (`@ti.kernel`, fields, ndarrays) turned
into the `taichi` dialect. Importing it imports no xDSL: the code generator
(codegen.py, emitter.py, calls.py) loads on the first kernel compilation.
"""
