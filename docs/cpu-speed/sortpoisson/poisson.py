"""
poisson (bench/cases/poisson.py): ours (SparseSolver LLT) against the Numba rival's direct
SciPy call (splu, MMD_AT_PLUS_A, SymmetricMode), on the same 512^2 Laplacian.

    python poisson.py cpu ours|rival [ROUNDS [swap]]  # CPU and wall medians, alternated in one
                                                      # process (rival: SciPy alone, no taichi_xdsl)
    python poisson.py profile                         # cProfile of one of our steps, CPU-time clock
    python poisson.py compare                         # same matrix? our steps' parts, x difference
"""
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu

M = 512
N = M * M
one = sp.eye(M)
lap = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(M, M))
R = (sp.kron(lap, one) + sp.kron(one, lap)).tocsc()
i, j = np.meshgrid(np.arange(M), np.arange(M), indexing="ij")
bn = (np.sin(0.01 * i) * np.cos(0.02 * j)).ravel()


def factor(matrix):
    return splu(matrix, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                options={"SymmetricMode": True})


def rival():
    return factor(R).solve(bn)


def ours_setup():
    """Our step on the matrix a kernel builds (as the bench case does): (step, A, b)."""
    import taichi_xdsl as ti

    ti.init(arch=ti.cpu)
    builder = ti.linalg.SparseMatrixBuilder(N, N, max_num_triplets=5 * N, dtype=ti.f64)
    b = ti.ndarray(ti.f64, shape=N)

    @ti.kernel
    def fill(K: ti.types.sparse_matrix_builder(), rhs: ti.types.ndarray()):
        for i, j in ti.ndrange(M, M):
            row = i * M + j
            K[row, row] += 4.0
            if i > 0:
                K[row, row - M] -= 1.0
            if i < M - 1:
                K[row, row + M] -= 1.0
            if j > 0:
                K[row, row - 1] -= 1.0
            if j < M - 1:
                K[row, row + 1] -= 1.0
            rhs[row] = ti.sin(0.01 * i) * ti.cos(0.02 * j)

    fill(builder, b)
    A = builder.build()

    def ours():
        s = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
        s.analyze_pattern(A)
        s.factorize(A)
        return s.solve(b)

    return ours, A, b


def cpu_times(which: str, rounds: int, swap: bool) -> None:
    fns = {"rival": rival}
    if which == "ours":
        fns["ours"] = ours_setup()[0]
    if swap:
        fns = dict(reversed(list(fns.items())))  # ours first in each pair
    res = {k: ([], []) for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            w, c = time.perf_counter(), time.process_time()
            f()
            res[k][0].append(time.perf_counter() - w)
            res[k][1].append(time.process_time() - c)
    for k, (w, c) in res.items():
        print(f"{which}-process {k}: wall median {1e3 * sorted(w)[len(w) // 2]:.0f} ms  "
              f"cpu median {1e3 * sorted(c)[len(c) // 2]:.0f} ms  cpu min {1e3 * min(c):.0f}")


def profile() -> None:
    import cProfile
    import io
    import pstats

    ours = ours_setup()[0]
    ours()
    pr = cProfile.Profile(time.process_time)
    pr.enable()
    ours()
    pr.disable()
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(10)
    print(out.getvalue()[:3000])


def compare() -> None:
    ours, A, b = ours_setup()
    S = A.to_scipy()
    print(type(S).__name__, S.format, S.nnz, S.indices.dtype, S.has_sorted_indices,
          S.has_canonical_format)
    print("rival", R.format, R.nnz, R.indices.dtype)
    C = S.tocsc().astype(np.float64)
    print("same pattern", (C.indptr == R.indptr).all() and (C.indices == R.indices).all(),
          "same data", np.abs(C.data - R.data).max())
    for _ in range(3):
        t = time.perf_counter(); ours(); a = time.perf_counter() - t
        t = time.perf_counter(); rival(); c = time.perf_counter() - t
        print(f"ours {a * 1e3:.0f} rival {c * 1e3:.0f}")
    t0 = time.perf_counter(); c = S.tocsc().astype(np.float64); t1 = time.perf_counter()
    lu = factor(c); t2 = time.perf_counter()
    lu.solve(b.to_numpy().astype(np.float64)); t3 = time.perf_counter()
    print(f"  convert {1e3 * (t1 - t0):.1f} splu {1e3 * (t2 - t1):.1f} "
          f"solve {1e3 * (t3 - t2):.1f} nnzL {lu.L.nnz}")
    print("rival nnzL", factor(R).L.nnz)
    print("x diff", np.abs(ours().to_numpy() - rival()).max())


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "cpu":
        cpu_times(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 5, len(sys.argv) > 4)
    elif mode == "profile":
        profile()
    else:
        compare()
