import time, sys, numpy as np, taichi_xdsl as ti
import scipy.sparse as sp
from scipy.sparse.linalg import splu
ti.init(arch=ti.cpu)
M=512; N=M*M
builder = ti.linalg.SparseMatrixBuilder(N, N, max_num_triplets=5 * N, dtype=ti.f64)
b = ti.ndarray(ti.f64, shape=N)
@ti.kernel
def fill(K: ti.types.sparse_matrix_builder(), rhs: ti.types.ndarray()):
    for i, j in ti.ndrange(M, M):
        row = i * M + j
        K[row, row] += 4.0
        if i > 0: K[row, row - M] -= 1.0
        if i < M - 1: K[row, row + M] -= 1.0
        if j > 0: K[row, row - 1] -= 1.0
        if j < M - 1: K[row, row + 1] -= 1.0
        rhs[row] = ti.sin(0.01 * i) * ti.cos(0.02 * j)
fill(builder, b)
A = builder.build()
S = A.to_scipy()
print(type(S).__name__, S.format, S.nnz, S.indices.dtype, S.has_sorted_indices, S.has_canonical_format)
one = sp.eye(m := M); lap = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
R = (sp.kron(lap, one) + sp.kron(one, lap)).tocsc()
print("rival", R.format, R.nnz, R.indices.dtype)
C = S.tocsc().astype(np.float64)
print("same pattern", (C.indptr == R.indptr).all() and (C.indices == R.indices).all(), "same data", np.abs(C.data - R.data).max())
bn = b.to_numpy()
def ours():
    solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
    solver.analyze_pattern(A); solver.factorize(A); return solver.solve(b)
def rival():
    return splu(R, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True}).solve(bn)
def conv():
    return S.tocsc().astype(np.float64)
def split(): # ours' parts
    t0=time.perf_counter(); c=S.tocsc().astype(np.float64); t1=time.perf_counter()
    lu=splu(c, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True}); t2=time.perf_counter()
    x=lu.solve(b.to_numpy().astype(np.float64)); t3=time.perf_counter()
    print(f"  convert {1e3*(t1-t0):.1f} splu {1e3*(t2-t1):.1f} solve {1e3*(t3-t2):.1f} nnzL {lu.L.nnz} ")
for r in range(3):
    t=time.perf_counter(); ours(); a=time.perf_counter()-t
    t=time.perf_counter(); rival(); c=time.perf_counter()-t
    print(f"ours {a*1e3:.0f} rival {c*1e3:.0f}")
split()
lu=splu(R, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True}); print("rival nnzL", lu.L.nnz)
print("x diff", np.abs(ours().to_numpy()-rival()).max())
