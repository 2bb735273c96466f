"""Session 8 prototype (measurement only, not part of the package): a multifrontal
supernodal Cholesky in NumPy + scipy.linalg BLAS/LAPACK on a nested-dissection ordering
of our own (BFS middle levels, batched per round). Correct (residual 1e-12) but 6-12x
slower than SuperLU on the 512^2 Poisson matrix: see sortpoisson.md, "poisson (session 8)".
"""
import time, numpy as np, scipy.sparse as sp
from scipy.sparse import csgraph
from scipy.linalg import lapack, blas

def nd_tree(G, leaf):
    """G: a symmetric CSR pattern without diagonal. Returns (vertices of each node,
    parent of each node), every parent made before its children."""
    n = G.shape[0]
    active = np.arange(n)
    tag = np.full(n, -1)          # pending parent node of each active vertex
    nodes, parents = [], []
    H = G
    while active.size:
        ncomp, comp = csgraph.connected_components(H, directed=False)
        sizes = np.bincount(comp, minlength=ncomp)
        # first vertex of each component
        first = np.full(ncomp, H.shape[0])
        np.minimum.at(first, comp, np.arange(H.shape[0]))
        small = sizes <= leaf
        # BFS sweep 1 from first vertex of each big comp
        big = np.flatnonzero(~small)
        keep = np.ones(H.shape[0], bool)
        if big.size:
            d = csgraph.dijkstra(H, indices=first[big], unweighted=True, min_only=True)
            d[~np.isfinite(d)] = -1
            # farthest vertex per component
            order = np.lexsort((d, comp))
            last = np.searchsorted(comp[order], np.arange(ncomp), side="right") - 1
            far = order[last[big]]
            d = csgraph.dijkstra(H, indices=far, unweighted=True, min_only=True)
            d[~np.isfinite(d)] = -1
            ecc = np.zeros(ncomp); np.maximum.at(ecc, comp, d)
            mid = np.floor(ecc / 2)
            sep = (~small[comp]) & (d == mid[comp])
        else:
            sep = np.zeros(H.shape[0], bool)
        # leaves: whole small components
        leafv = small[comp]
        # create nodes
        for mask in (sep, leafv):
            idx = np.flatnonzero(mask)
            if idx.size == 0: continue
            c = comp[idx]
            o = np.argsort(c, kind="stable")
            idx, c = idx[o], c[o]
            cuts = np.flatnonzero(np.diff(c)) + 1
            base = len(nodes)
            groups = np.split(idx, cuts)
            for g in groups:
                nodes.append(active[g]); parents.append(tag[active[g[0]]])
            if mask is sep:
                # remaining vertices of these components get the new node as pending parent
                nodeid = np.full(ncomp, -1)
                nodeid[c[np.r_[0, cuts]]] = base + np.arange(len(groups))
                rest = ~sep & ~leafv & (nodeid[comp] >= 0)
                tag[active[rest]] = nodeid[comp[rest]]
        keep = ~(sep | leafv)
        active = active[keep]
        H = H[keep][:, keep]
    return nodes, np.array(parents)

def analyze(A, leaf=64):
    n = A.shape[0]
    G = A.tocsr(copy=True); G.setdiag(0); G.eliminate_zeros()
    G = (G + G.T).tocsr(); G.data = np.ones_like(G.data)
    nodes, parent = nd_tree(G, leaf)
    nn = len(nodes)
    # Children before parents: every parent was made before its children, so the
    # reverse order of creation.
    order = np.arange(nn)[::-1]
    perm = np.concatenate([nodes[k] for k in order])
    newpos = np.empty(nn, int); newpos[order] = np.arange(nn)
    par = np.where(parent[order] >= 0, newpos[parent[order]], -1)
    sizes = np.array([nodes[k].size for k in order])
    start = np.r_[0, np.cumsum(sizes)]
    iperm = np.empty(n, int); iperm[perm] = np.arange(n)
    C = A[perm][:, perm].tocsc()
    Cl = sp.tril(C, format="csc")  # lower triangle in new numbering
    Cl.sort_indices()
    Gp = G[perm][:, perm].tocsc()
    children = [[] for _ in range(nn)]
    for k in range(nn):
        if par[k] >= 0: children[par[k]].append(k)
    below = [None] * nn
    ind, ptr = Gp.indices, Gp.indptr
    for k in range(nn):
        f, l = start[k], start[k + 1]
        parts = [ind[ptr[f]:ptr[l]]] + [below[c] for c in children[k]]
        u = np.unique(np.concatenate(parts))
        below[k] = u[u >= l]
    # assembly maps
    amap = []
    for k in range(nn):
        f, l = start[k], start[k + 1]
        s = l - f
        idx = np.r_[np.arange(f, l), below[k]]
        m = idx.size
        a0, a1 = Cl.indptr[f], Cl.indptr[l]
        rows = Cl.indices[a0:a1]
        cols = np.repeat(np.arange(s), np.diff(Cl.indptr[f:l + 1]))
        rpos = np.where(rows < l, rows - f, s + np.searchsorted(below[k], rows))
        amap.append((a0, a1, rpos * m + cols))   # F[rpos, col] (row-major) lower
    rel = [None] * nn
    for k in range(nn):
        p = par[k]
        if p >= 0:
            fp, lp = start[p], start[p + 1]
            b = below[k]
            rel[k] = np.where(b < lp, b - fp, (lp - fp) + np.searchsorted(below[p], b))
    return dict(n=n, perm=perm, start=start, par=par, below=below, amap=amap, rel=rel,
                children=children, Cl=Cl, iperm=iperm)

def factorize(S, A):
    C = A[S["perm"]][:, S["perm"]]
    Cl = sp.tril(C, format="csc"); Cl.sort_indices()
    data = Cl.data
    start, below, amap = S["start"], S["below"], S["amap"]
    rel, children = S["rel"], S["children"]
    nn = len(below)
    upd = [None] * nn
    L = [None] * nn
    potrf, trsm, syrk = lapack.dpotrf, blas.dtrsm, blas.dsyrk
    for k in range(nn):
        s = start[k + 1] - start[k]
        m = s + below[k].size
        F = np.zeros((m, m))
        a0, a1, pos = amap[k]
        F.ravel()[pos] = data[a0:a1]
        for c in children[k]:
            r = rel[c]
            F[np.ix_(r, r)] += upd[c]
            upd[c] = None
        # F (C order) holds the lower triangle; Ft = F.T (Fortran order) holds it as its
        # upper triangle: dpotrf(upper) gives Ft11 = Rᵀ R, so L11 = Rᵀ.
        Ft = F.T
        L11, info = potrf(Ft[:s, :s], lower=0, overwrite_a=0, clean=1)
        if info != 0:
            return None
        R = L11
        if m > s:
            B = Ft[:s, s:]  # = F[s:, :s]^T  (s x b)
            X = trsm(1.0, R, B, side=0, lower=0, trans_a=1)  # Rᵀ X = B: X = L21ᵀ
            U = syrk(-1.0, X, trans=1, beta=1.0, c=Ft[s:, s:], lower=0)  # Ft22 - Xᵀ X
            upd[k] = U.T  # lower in row-major view
            L[k] = (R, X)
        else:
            L[k] = (R, None)
    return L

def solve(S, L, b):
    perm, start, below = S["perm"], S["start"], S["below"]
    x = np.asarray(b, float)[perm].copy()
    nn = len(below)
    trsv = blas.dtrsv
    for k in range(nn):
        f, l = start[k], start[k + 1]
        R, X = L[k]
        y = trsv(R, x[f:l], lower=0, trans=1)   # R^T y = x
        x[f:l] = y
        if X is not None:
            x[below[k]] -= X.T @ y
    for k in range(nn - 1, -1, -1):
        f, l = start[k], start[k + 1]
        R, X = L[k]
        z = x[f:l]
        if X is not None:
            z = z - X @ x[below[k]]
        x[f:l] = trsv(R, z, lower=0, trans=0)
    out = np.empty_like(x); out[perm] = x
    return out
