# poisson: ours (SparseSolver LLT) and the direct splu call alternated in one process; CPU and wall time.
import time, sys, numpy as np
sys.argv=["x","ours","1"]
import scipy.sparse as sp
from scipy.sparse.linalg import splu
M=512; N=M*M
one = sp.eye(M); lap = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(M, M))
R = (sp.kron(lap, one) + sp.kron(one, lap)).tocsc()
i, j = np.meshgrid(np.arange(M), np.arange(M), indexing="ij")
bn = (np.sin(0.01 * i) * np.cos(0.02 * j)).ravel()
def rival():
    return splu(R, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True}).solve(bn)
fns = {"rival": rival}
if sys.argv[1] == "ours":
    import taichi_xdsl as ti
    ti.init(arch=ti.cpu)
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
    def ours():
        s = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
        s.analyze_pattern(A); s.factorize(A); return s.solve(b)
    fns["ours"] = ours

import cProfile, pstats, io
ours()
pr = cProfile.Profile(time.process_time); pr.enable(); ours(); pr.disable()
st = io.StringIO(); pstats.Stats(pr, stream=st).sort_stats("tottime").print_stats(10); print(st.getvalue()[:3000])
