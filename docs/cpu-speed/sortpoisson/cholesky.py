"""Session 8 measurements of poisson's factorisation (not part of the package).

    python cholesky.py paired R      # SuperLU (MMD), CHOLMOD (cvxopt), SuperLU on METIS
    python cholesky.py proto M LEAF  # the NumPy supernodal prototype, M^2 Poisson matrix
    python cholesky.py metis         # pymetis' ND: time, nnz(L) (SuperLU, NATURAL)

`paired` and `metis` need cvxopt and pymetis (pip install cvxopt pymetis).
"""

import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import splu


def poisson2d(m=512):
    """The bench's matrix (5-point Laplacian, row = i * m + j) and right-hand side."""
    t = sp.diags([-np.ones(m - 1), 4 * np.ones(m), -np.ones(m - 1)], [-1, 0, 1])
    s = sp.diags([-np.ones(m - 1), -np.ones(m - 1)], [-1, 1])
    a = (sp.kron(sp.identity(m), t) + sp.kron(s, sp.identity(m))).tocsc()
    a.sort_indices()
    i, j = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
    return a, (np.sin(0.01 * i) * np.cos(0.02 * j)).ravel()


def superlu(a, b):
    lu = splu(a, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0,
              options=dict(SymmetricMode=True))
    return lu.solve(b)


def cholmod(a, b):
    from cvxopt import cholmod as cm
    from cvxopt import matrix, spmatrix

    lo = a.tocoo()
    keep = lo.row >= lo.col
    m = spmatrix(matrix(lo.data[keep]), matrix(lo.row[keep].astype(np.int64)),
                 matrix(lo.col[keep].astype(np.int64)), size=a.shape)
    f = cm.symbolic(m, uplo="L")
    cm.numeric(m, f)
    x = matrix(b)
    cm.solve(f, x)
    return np.array(x).ravel()


def metis_perm(a):
    import pymetis

    g = a.tocsr()
    g.setdiag(0)
    g.eliminate_zeros()
    adjacency = pymetis.CSRAdjacency(g.indptr, g.indices)
    return np.asarray(pymetis.nested_dissection(adjacency)[0])


def metis_superlu(a, b):
    p = metis_perm(a)
    lu = splu(a[p][:, p].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0,
              options=dict(SymmetricMode=True))
    x = np.empty_like(b)
    x[p] = lu.solve(b[p])
    return x


def paired(rounds):
    a, b = poisson2d()
    fs = dict(superlu=superlu, cholmod=cholmod, metis_superlu=metis_superlu)
    ts = {k: [] for k in fs}
    print("load before", os.getloadavg())
    for r in range(rounds):  # alternate the order: whichever runs first does better
        for k, f in (fs.items() if r % 2 == 0 else reversed(fs.items())):
            t = time.perf_counter()
            x = f(a, b)
            ts[k].append(time.perf_counter() - t)
            assert np.linalg.norm(a @ x - b) < 1e-8 * np.linalg.norm(b)
    print("load after", os.getloadavg())
    base = np.array(ts["superlu"])
    for k, v in ts.items():
        v = np.array(v)
        print(f"{k:14s} median {np.median(v):.3f}s min {v.min():.3f}s  "
              f"median of pairs / superlu {np.median(v / base):.2f}")


def metis():
    a, b = poisson2d()
    t = time.perf_counter()
    p = metis_perm(a)
    t1 = time.perf_counter()
    lu = splu(a[p][:, p].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0,
              options=dict(SymmetricMode=True))
    t2 = time.perf_counter()
    print(f"metis {t1 - t:.3f}s, SuperLU on it {t2 - t1:.3f}s, nnz(L) {lu.L.nnz}")
    t = time.perf_counter()
    lu = splu(a, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0,
              options=dict(SymmetricMode=True))
    print(f"SuperLU MMD {time.perf_counter() - t:.3f}s, nnz(L) {lu.L.nnz}")


def proto(m, leaf):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import supernodal_proto as sn

    a, b = poisson2d(m)
    t0 = time.perf_counter()
    s = sn.analyze(a, leaf)
    t1 = time.perf_counter()
    factor = sn.factorize(s, a)
    t2 = time.perf_counter()
    x = sn.solve(s, factor, b)
    t3 = time.perf_counter()
    nnz = sum(r.shape[0] * (r.shape[0] + 1) // 2 + (0 if x_ is None else x_.size)
              for r, x_ in factor)
    print(f"supernodes {len(factor)} nnz(L) {nnz} analyze {t1 - t0:.3f}s "
          f"factorize {t2 - t1:.3f}s solve {t3 - t2:.3f}s total {t3 - t0:.3f}s; "
          f"residual {np.linalg.norm(a @ x - b) / np.linalg.norm(b):.1e}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "paired":
        paired(int(sys.argv[2]))
    elif mode == "metis":
        metis()
    else:
        proto(int(sys.argv[2]), int(sys.argv[3]))
