"""Session 9: qdldl and cholespy against SuperLU on the bench's Laplacian (needs scipy,
qdldl, cholespy; not a dependency of the package)."""
import time, numpy as np, scipy.sparse as sp, scipy.sparse.linalg as spl, qdldl, cholespy
M=512; N=M*M
e=np.ones(M); T=sp.diags([-e[:-1],4*e,-e[:-1]],[-1,0,1]); I=sp.eye(M)
A=(sp.kron(I,T)+sp.kron(sp.diags([-e[:-1],-e[:-1]],[-1,1]),I)).tocsc()
b=np.random.rand(N)
for r in range(3):
    t=time.perf_counter(); s=qdldl.Solver(A); x=s.solve(b); t1=time.perf_counter()-t
    t=time.perf_counter(); lu=spl.splu(A, permc_spec="MMD_AT_PLUS_A", options=dict(SymmetricMode=True)); y=lu.solve(b); t2=time.perf_counter()-t
    A.sort_indices()
    t=time.perf_counter()
    s=cholespy.CholeskySolverD(N, A.indptr.astype(np.int32), A.indices.astype(np.int32), A.data, cholespy.MatrixType.CSC)
    z=np.zeros(N); s.solve(b, z); t3=time.perf_counter()-t
    print(f"cholespy {t3*1e3:.0f} ms", np.abs(A@z-b).max())
    print(f"qdldl {t1*1e3:.0f} ms superlu {t2*1e3:.0f} ms", np.abs(A@x-b).max(), np.abs(A@y-b).max())
