# ruff: noqa: F821 - `ti` and `np` are bound by bench/worker.py when it runs the case
"""sort: ti.algorithms.parallel_sort of 2^24 random u32 keys in a field."""

N = 1 << 24
RESET_EACH_CALL = True  # a sort of sorted keys is not the case: fresh keys every call

keys = ti.field(ti.u32, shape=N)
DATA = np.random.default_rng(0).integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
keys.from_numpy(DATA)


def step():
    ti.algorithms.parallel_sort(keys)


def reset():
    keys.from_numpy(DATA)


def result():
    return keys.to_numpy()[:: N // 4096].astype(np.float64)
