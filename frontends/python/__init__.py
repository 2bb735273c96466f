"""
The Python frontend: Taichi's kernel language as users write it, and its translation
into the `taichi` dialect. Two packages, one room per concern:

- `lang/`: what users hold and call: `ti.init` and the program state (program.py),
  dtypes and `ti.types`, fields, ndarrays, matrices, structs, textures, the `ti.*`
  intrinsics and `ti.math`, `@ti.kernel` / `@ti.func`, autodiff, AOT modules and graphs.
  It imports no xDSL.
- `codegen/`: Python AST -> `taichi` dialect: one visitor (visitor.py) and one module of
  lowering functions per kind of construct (expressions, calls, loops, vectors, structs,
  random, textures) over a shared core (emitter.py: typed ops; values.py: what an
  expression evaluates to).

Imports point from codegen to lang: the code generator recognises the objects users
pass (a Field, a Matrix type, a struct type, a `@ti.func`), so it imports their classes;
nothing in lang imports codegen at module level. lang reaches codegen at one point only,
when a kernel instance is compiled (`Kernel.build_module` in lang/kernel.py), with a
deferred import: that is what keeps `import taichi_xdsl`, `ti.init` and `ti.field` free
of xDSL, which loads with the first kernel compilation.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType


# -- the flat paths of before the split ----------------------------------------------------
# Code outside this repository that imports `taichi_xdsl.frontends.python.program` (the
# shared conformance harness does) keeps working until it moves to `...python.lang.*`:
# an old name resolves to its module in lang/, registered under the old path on first use.
_MOVED_TO_LANG = frozenset(
    ("aot", "autodiff", "dtypes", "field", "graph", "kernel", "matrix", "ndarray", "ops")
    + ("program", "source_key", "struct", "texture", "tmath", "types")
)


def __getattr__(name: str) -> ModuleType:
    if name in _MOVED_TO_LANG:
        module = import_module(f"{__name__}.lang.{name}")
        sys.modules[f"{__name__}.{name}"] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
