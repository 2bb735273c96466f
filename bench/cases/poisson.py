# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""poisson: the 2-D Poisson matrix of 512^2 unknowns (5-point stencil) built in a kernel
through a SparseMatrixBuilder once; a step is SparseSolver(LLT) factorize + solve."""

M = 512
N = M * M

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
x = None


def step():
    global x
    solver = ti.linalg.SparseSolver(dtype=ti.f64, solver_type="LLT")
    solver.analyze_pattern(A)
    solver.factorize(A)
    x = solver.solve(b)


def result():
    return np.asarray(x.to_numpy() if hasattr(x, "to_numpy") else x)[:: N // 1024]
