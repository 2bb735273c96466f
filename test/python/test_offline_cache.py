"""
The offline cache (utils/cache.py, targets/llvm/cache.py): a second process loads what a
first one compiled; changing the kernel source, a template argument, the config or the
compiler version misses; LRU trimming; corrupt entries are ignored and rebuilt.

Each compile runs in a fresh Python process (the cache is for later processes), with
the cache directory given through ti.init(offline_cache_file_path=...).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.utils.cache import INDEX_NAME, OfflineCache, cache_key

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import taichi_xdsl as ti

    options = json.loads(sys.argv[1])
    # Other work may edit the compiler's sources while the test runs: pin their hash
    # (test_source_fingerprint checks that it follows edits).
    from taichi_xdsl.utils import cache_keys
    cache_keys.fingerprint_sources = lambda root, dirs: "pinned"
    cache_keys.stat_fingerprint = lambda root, dirs: "pinned"
    if options.get("version"):
        ti.__xdsl_version__ = options["version"]
    ti.init(arch=ti.cpu, offline_cache_file_path=options["path"], **options["init"])

    @ti.kernel
    def scale(n: ti.template(), a: ti.f32, x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
        for i in range(x.shape[0]):
            x[i] = a * x[i] + OFFSET * n

    x = np.arange(8, dtype=np.float32)
    scale(options["n"], 2.0, x)
    from taichi_xdsl.frontends.python.lang import program
    backend = program.get_program()._backend
    print(json.dumps({
        "x": x.tolist(),
        "hits": backend.cache_hits if backend is not None else 0,
        "misses": backend.cache_misses if backend is not None else 0,
    }))
    """
)


def run(path: Path, *, offset: str = "1.0", n: int = 3, version: str = "", **init) -> dict:
    """
    Compile and run `scale` in a fresh process (cache in `path`/cache); its result and
    the backend's cache counters.
    """
    source = SCRIPT.replace("OFFSET", offset)
    options = {"path": str(path / "cache"), "n": n, "version": version, "init": init}
    env = dict(os.environ)
    env.pop("TI_OFFLINE_CACHE", None)
    script = path / f"scale_{abs(hash(source)) % 10**8}.py"
    script.write_text(source)
    done = subprocess.run(
        [sys.executable, str(script), json.dumps(options)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def expected(offset: float = 1.0, n: int = 3) -> list[float]:
    return [2.0 * i + offset * n for i in range(8)]


def entry_files(path: Path) -> list[Path]:
    """The kernels' entries (not the source-key mappings, not the thread pool's code)."""
    cache = OfflineCache(path / "cache")
    found = []
    for file in sorted((path / "cache").glob("*.tic")):
        entry = cache.load(file.stem)
        if entry is not None and "plan" in entry.meta:
            found.append(file)
    return found


def test_second_process_hits(tmp_path: Path) -> None:
    first = run(tmp_path)
    assert (first["hits"], first["misses"]) == (0, 1)
    assert first["x"] == expected()
    assert len(entry_files(tmp_path)) == 1
    second = run(tmp_path)
    assert (second["hits"], second["misses"]) == (1, 0)
    assert second["x"] == expected()
    assert len(entry_files(tmp_path)) == 1


@pytest.mark.parametrize(
    "change",
    [
        {"offset": "5.0"},  # the kernel's source
        {"n": 4},  # a template argument
        {"debug": True},  # the config
        {"opt_level": 0},  # the config (the default is 1)
        {"fast_math": False},  # the config
        {"version": "999.0"},  # the compiler version
    ],
    ids=["source", "template", "debug", "opt_level", "fast_math", "compiler_version"],
)
def test_changed_key_part_misses(tmp_path: Path, change: dict) -> None:
    run(tmp_path)
    changed = run(tmp_path, **change)
    assert (changed["hits"], changed["misses"]) == (0, 1)
    offset = float(change.get("offset", "1.0"))
    assert changed["x"] == expected(offset, change.get("n", 3))
    assert len(entry_files(tmp_path)) == 2
    # the original entry is still there and still hits
    again = run(tmp_path)
    assert (again["hits"], again["misses"]) == (1, 0)


def test_offline_cache_off_writes_nothing(tmp_path: Path) -> None:
    result = run(tmp_path, offline_cache=False)
    assert (result["hits"], result["misses"]) == (0, 0)
    assert result["x"] == expected()
    assert entry_files(tmp_path) == []


def test_corrupt_entry_is_ignored_and_rebuilt(tmp_path: Path) -> None:
    run(tmp_path)
    (entry,) = entry_files(tmp_path)
    good = entry.read_bytes()
    for corrupt in (good[: len(good) // 2], good[:-1] + bytes([good[-1] ^ 0xFF]), b"junk"):
        entry.write_bytes(corrupt)
        result = run(tmp_path)
        assert (result["hits"], result["misses"]) == (0, 1)
        assert result["x"] == expected()
        assert entry_files(tmp_path) == [entry]
        assert entry.read_bytes() == good  # rebuilt: the same bytes as the first compile
    assert run(tmp_path)["hits"] == 1


def test_keys_are_deterministic_and_part_sensitive() -> None:
    assert cache_key(ir="a", arch="x64") == cache_key(arch="x64", ir="a")
    assert cache_key(ir="a", arch="x64") != cache_key(ir="a", arch="arm64")
    # length prefixes: moving bytes from one part to the next changes the key
    assert cache_key(a="xy", b="z") != cache_key(a="x", b="yz")


def test_source_fingerprint_follows_edits(tmp_path: Path) -> None:
    from taichi_xdsl.utils.cache_keys import fingerprint_sources

    (tmp_path / "lowering").mkdir()
    (tmp_path / "lowering" / "a_pass.py").write_text("X = 1\n")
    before = fingerprint_sources(tmp_path, ("lowering",))
    assert fingerprint_sources(tmp_path, ("lowering",)) == before
    (tmp_path / "lowering" / "a_pass.py").write_text("X = 2\n")
    assert fingerprint_sources(tmp_path, ("lowering",)) != before
    (tmp_path / "lowering" / "a_pass.py").write_text("X = 1\n")
    assert fingerprint_sources(tmp_path, ("lowering",)) == before
    (tmp_path / "lowering" / "b_pass.py").write_text("")
    assert fingerprint_sources(tmp_path, ("lowering",)) != before


def test_lru_trimming(tmp_path: Path) -> None:
    cache = OfflineCache(tmp_path, max_bytes=10_000, cleaning_factor=0.5)
    payload = bytes(2_000)
    for index in range(4):
        assert cache.store(f"k{index}", {"i": index}, payload)
        assert cache.flush()
    assert cache.size() < 10_000
    assert cache.load("k0") is not None  # k0 becomes the most recently used
    assert cache.store("k4", {"i": 4}, payload)
    assert cache.flush()  # over the bound: int(0.5 * 5) entries go, least recently used
    left = {path.stem for _, _, path in cache.entries()}
    assert left == {"k0", "k3", "k4"}
    assert cache.load("k1") is None
    entry = cache.load("k4")
    assert entry is not None and entry.meta == {"i": 4} and entry.payload == payload


def test_fifo_ignores_use(tmp_path: Path) -> None:
    cache = OfflineCache(
        tmp_path, max_bytes=7_000, cleaning_policy="fifo", cleaning_factor=0.5
    )
    for index in range(3):
        cache.store(f"k{index}", {}, bytes(2_000))
        cache.flush()
    assert cache.load("k0") is not None  # does not refresh under fifo
    cache.store("k3", {}, bytes(2_000))
    cache.flush()
    assert {path.stem for _, _, path in cache.entries()} == {"k2", "k3"}


@pytest.mark.parametrize(
    ("policy", "factor", "left"),
    [("lru", 0.0, 4), ("lru", 0.25, 3), ("fifo", 0.85, 1), ("never", 1.0, 4)],
)
def test_cleaning_removes_a_share_of_the_entries(
    tmp_path: Path, policy: str, factor: float, left: int
) -> None:
    cache = OfflineCache(tmp_path)
    for index in range(4):
        cache.store(f"k{index}", {"kernel": f"k{index}"}, bytes(100))
    cache.flush()
    small = OfflineCache(tmp_path, max_bytes=1, cleaning_policy=policy, cleaning_factor=factor)
    assert small.flush()  # a program that compiled nothing still cleans at its end
    assert len(small.entries()) == left
    assert (tmp_path / INDEX_NAME).exists()


def test_cleaning_everything_removes_the_index(tmp_path: Path) -> None:
    cache = OfflineCache(tmp_path)
    cache.store("k", {}, bytes(100))
    cache.flush()
    OfflineCache(tmp_path, max_bytes=1, cleaning_factor=1.0).flush()
    assert list(tmp_path.iterdir()) == []


def test_version_policy_removes_other_versions(tmp_path: Path) -> None:
    old = OfflineCache(tmp_path, version="0.1")
    old.store("old", {}, bytes(100))
    old.flush()
    new = OfflineCache(tmp_path, version="0.2", max_bytes=150, cleaning_policy="version")
    new.store("new", {}, bytes(100))
    new.flush()
    assert {path.stem for _, _, path in new.entries()} == {"new"}


def test_entries_are_written_at_flush(tmp_path: Path) -> None:
    """One file a kernel plus the index, written when the program ends (as Taichi)."""
    cache = OfflineCache(tmp_path / "c")
    assert cache.flush() and not (tmp_path / "c").exists()  # nothing to write
    cache.store("a", {"kernel": "a"}, b"code a")
    cache.store("b", {"kernel": "b"}, b"code b")
    cache.link("source-of-a", "a", "a")
    assert not (tmp_path / "c").exists()
    entry = cache.load("a")  # this process sees its pending entries
    assert entry is not None and entry.payload == b"code a"
    assert cache.flush()
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == [
        "a.tic", "b.tic", INDEX_NAME,
    ]
    later = OfflineCache(tmp_path / "c")
    assert later.linked("source-of-a") == ("a", "a")
    assert later.load("b") is not None


def test_unwritable_directory_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = OfflineCache(blocker / "cache")
    assert cache.store("k", {}, b"x")
    assert cache.flush() is False
    assert OfflineCache(blocker / "cache").load("k") is None


def test_bad_cleaning_policy() -> None:
    with pytest.raises(ValueError, match="cleaning_policy"):
        OfflineCache("/tmp", cleaning_policy="sometimes")


def test_print_pass_times(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def compile_once() -> str:
        @ti.kernel
        def double(x: ti.types.ndarray(dtype=ti.f32, ndim=1)):
            for i in range(x.shape[0]):
                x[i] = 2 * x[i]

        x = np.ones(4, dtype=np.float32)
        double(x)
        assert x.tolist() == [2.0] * 4
        return capsys.readouterr().out

    # offline_cache=True explicitly: the environment (TI_OFFLINE_CACHE=0) may turn off the default.
    ti.init(print_pass_times=True, offline_cache=True, offline_cache_file_path=str(tmp_path))
    cold = compile_once()
    assert "pass times of double" in cold and "(cold compile)" in cold
    stages = [line.split("%", 1)[1].strip() for line in cold.splitlines() if "%  " in line]
    for stage in (
        "ti-mem2reg",
        "ti-offload",
        "ti-lower-access",
        "convert-arith-to-llvm",
        "translate to LLVM IR",
        "LLVM O3 + codegen",
        "offline cache store",
    ):
        assert stage in stages, stage
    assert stages[-1] == "total"
    assert (
        stages.index("ti-mem2reg")
        < stages.index("ti-offload")
        < stages.index("ti-lower-access")
    )
    ti.init(print_pass_times=True, offline_cache=True, offline_cache_file_path=str(tmp_path))
    warm = compile_once()
    assert "(offline cache hit)" in warm and "ti-mem2reg" not in warm
    ti.init(offline_cache_file_path=str(tmp_path))
    assert compile_once() == ""
    ti.reset()


def test_program_writes_its_kernels_when_it_ends(tmp_path: Path, arch: Any) -> None:
    """A program's kernels reach the directory at ti.reset()/ti.init(): one file each
    plus the index; a second program hits them (right results) and writes nothing new."""

    @ti.kernel
    def one() -> ti.i32:
        return 1

    @ti.kernel
    def add(a: ti.i32, b: ti.i32) -> ti.i32:
        return a + b

    def init() -> Any:
        ti.init(arch=arch, offline_cache=True, offline_cache_file_path=str(tmp_path))
        from taichi_xdsl.frontends.python.lang import program

        return program.get_program().backend

    init()
    assert one() == 1 and add(2, 3) == 5
    assert list(tmp_path.iterdir()) == []
    backend = init()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 3 and names[-1] == INDEX_NAME
    assert one() == 1 and add(4, 5) == 9 and add(-4, 5) == 1
    assert backend.cache_hits == 2
    ti.reset()
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_gradient_kernels_are_cached_like_any_kernel(tmp_path: Path, arch: Any) -> None:
    """A kernel's adjoint (ti.ad.Tape) is an entry of its own: a second program hits
    both the forward and the gradient kernel, gets the same gradients, and writes no
    new file (Taichi's test_multiple_ib_with_offline_cache also counts its field
    accessor and gradient-clearing kernels, which taichi-xdsl does not compile)."""

    def run() -> Any:
        ti.init(arch=arch, offline_cache=True, offline_cache_file_path=str(tmp_path))
        from taichi_xdsl.frontends.python.lang import program

        x = ti.field(ti.f32, (), needs_grad=True)
        y = ti.field(ti.f32, (), needs_grad=True)

        @ti.kernel
        def compute_y():
            for j in range(2):
                for i in range(3):
                    y[None] += x[None] * x[None]

        x[None] = 1.5
        with ti.ad.Tape(y):
            compute_y()
        assert y[None] == 6 * 1.5 * 1.5
        assert x.grad[None] == 6 * 2 * 1.5
        return program.get_program().backend

    run()
    backend = run()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 3 and names[-1] == INDEX_NAME  # forward, adjoint, the index
    assert backend.cache_hits == 2
    run()
    ti.reset()
    assert sorted(p.name for p in tmp_path.iterdir()) == names


def test_default_opt_level_is_taichis_one(tmp_path: Path) -> None:
    """Taichi's opt_level: 1 by default, so a default ti.init reuses what opt_level=1
    compiled (and 0, no optimisation, is another entry)."""
    first = run(tmp_path, opt_level=1)
    assert first["x"] == expected()
    again = run(tmp_path)
    assert (again["hits"], again["misses"]) == (1, 0)
    unoptimised = run(tmp_path, opt_level=0)
    assert (unoptimised["hits"], unoptimised["misses"]) == (0, 1)
    assert unoptimised["x"] == expected()


def test_opt_level_zero_and_one_are_two_entries(tmp_path: Path, arch: Any) -> None:
    """ti.init(opt_level=0) compiles without the optional passes on every arch, so the
    same kernel at opt_level 0 and 1 is two entries with the same results (on Vulkan
    opt_level changed nothing once, and the two levels shared one entry)."""

    def run_level(level: int) -> Any:
        ti.init(
            arch=arch,
            opt_level=level,
            offline_cache=True,
            offline_cache_file_path=str(tmp_path),
        )
        from taichi_xdsl.frontends.python.lang import program

        @ti.kernel
        def triangle() -> ti.i32:
            total = 0
            for i in range(200):
                total += i
            return total

        assert triangle() == 199 * 200 // 2
        return program.get_program().backend

    run_level(0)
    run_level(1)
    ti.reset()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert len(names) == 3 and names[-1] == INDEX_NAME  # one entry per level, the index
    assert run_level(0).cache_hits == 1
    assert run_level(1).cache_hits == 1
    ti.reset()
    assert sorted(p.name for p in tmp_path.iterdir()) == names
