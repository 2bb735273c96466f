"""
`ti.linalg` and the small-matrix decompositions of `ti.*`.

- decompositions.py: `ti.svd`, `ti.polar_decompose`, `ti.sym_eig`, `ti.eig`, `ti.solve`,
  ti.funcs inlined into the kernels that call them (every arch, f32 and f64).
"""
