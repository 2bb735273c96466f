"""
Kernel lifecycle: compile on first call, one instance per template signature, the
cached fast path, keyword arguments, methods of data-oriented classes, ti.init options,
and `import taichi_xdsl` staying cheap.
"""

import subprocess
import sys

import numpy as np
import pytest
import taichi_xdsl as ti


# Every test runs on each arch, cpu and vulkan (conftest.py: `arch`, `program`).
pytestmark = pytest.mark.usefixtures("program")


def test_import_does_not_load_the_compiler(arch):
    code = (
        "import sys, taichi_xdsl as ti\n"
        "assert [m for m in sys.modules if m.startswith('taichi_xdsl')] == ['taichi_xdsl']\n"
        f"ti.init(arch=ti.{arch.name})\n"
        "x = ti.field(ti.f32, shape=4); x[0] = 1.0\n"
        "@ti.kernel\n"
        "def k(a: ti.f32): pass\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('xdsl', 'llvmlite')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_nothing_compiles_until_the_first_call():
    calls = []

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a + 1

    assert not k._instances
    calls.append(k(1))
    assert len(k._instances) == 1
    assert calls == [2]


def test_scalar_arguments_share_one_instance():
    @ti.kernel
    def k(a: ti.f32, b: ti.i32) -> ti.f32:
        return a * b

    assert k(1.5, 2) == 3.0
    assert k(2, 3) == 6.0  # ints for a float parameter
    assert k(np.float32(0.5), np.int64(4)) == 2.0
    assert len(k._instances) == 1


def test_template_python_values_are_compile_time_constants():
    @ti.kernel
    def k(n: ti.template()) -> ti.i32:
        s = 0
        for i in ti.static(range(n)):
            s += i
        return s

    assert k(4) == 6
    assert k(5) == 10
    assert k(4) == 6
    assert len(k._instances) == 2


def test_keyword_arguments_and_defaults():
    @ti.kernel
    def k(a: ti.i32, b: ti.i32 = 10) -> ti.i32:
        return a - b

    assert k(1) == -9
    assert k(b=1, a=5) == 4
    assert k(5, b=2) == 3


def test_many_calls_stay_on_the_fast_path():
    x = ti.field(ti.f32, shape=8)

    @ti.kernel
    def add(f: ti.template(), a: ti.types.ndarray(), v: ti.f32):
        for i in f:
            f[i] += a[i] * v

    a = np.ones(8, dtype=np.float32)
    for _ in range(1000):
        add(x, a, 0.5)
    assert len(add._instances) == 1
    np.testing.assert_allclose(x.to_numpy(), 500.0)


def test_data_oriented_class_with_kernel_methods():
    @ti.data_oriented
    class Counter:
        def __init__(self, n):
            self.values = ti.field(ti.i32, shape=n)
            self.step = 3

        @ti.func
        def delta(self, i):
            return i * self.step

        @ti.kernel
        def advance(self):
            for i in self.values:
                self.values[i] += self.delta(i)

    c = Counter(5)
    c.advance()
    c.advance()
    assert c.values.to_numpy().tolist() == [0, 6, 12, 18, 24]


def test_reinit_drops_compiled_instances(arch):
    @ti.kernel
    def k(a: ti.i32) -> ti.f32:
        return a / 3

    assert k(1) == pytest.approx(1 / 3, rel=1e-6)
    ti.init(arch=arch, default_fp=ti.f64)

    @ti.kernel
    def k64(a: ti.i32) -> ti.f64:
        return a / 3

    assert k64(1) == 1 / 3
    assert k(1) == pytest.approx(1 / 3, rel=1e-6)  # recompiled for the new program


def test_default_ip_changes_literal_type(arch):
    ti.init(arch=arch, default_ip=ti.i64)

    @ti.kernel
    def k() -> ti.i64:
        a = 1
        return a << 40

    assert k() == 1 << 40


@pytest.mark.cpu_only("the taichi-dialect IR is the same for every arch")
def test_get_ir_shows_the_taichi_dialect():
    x = ti.field(ti.f32, shape=4, name="x")

    @ti.kernel
    def k(a: ti.f32):
        for i in x:
            x[i] = a

    text = str(k.get_ir(1.0))
    assert "taichi.field @x : memref<4xf32> offset 0" in text
    assert "taichi.struct_for" in text


@pytest.mark.cpu_only("arch=ti.x64 and cpu_max_num_threads are CPU options")
def test_init_options_are_accepted():
    ti.init(
        arch=ti.x64,
        default_fp=ti.f32,
        default_ip=ti.i32,
        debug=False,
        cpu_max_num_threads=2,
        print_ir=False,
        random_seed=7,
        offline_cache=True,
    )

    @ti.kernel
    def k() -> ti.i32:
        return 7

    assert k() == 7
    ti.sync()


def test_init_reads_ti_environment_variables_and_shows_taichi_defaults(arch, monkeypatch):
    """$TI_<OPTION> sets an option ti.init is not given (Taichi's rule; an argument
    wins): TI_DEBUG=1 turns bounds checks on. Options without a field of their own show
    the given value or Taichi's default; `_test_mode=True` returns the options."""
    monkeypatch.setenv("TI_DEBUG", "1")
    monkeypatch.setenv("TI_FAST_MATH", "0")
    monkeypatch.setenv("TI_LOG_LEVEL", "warn")
    ti.init(arch=arch)
    cfg = ti.lang.impl.current_cfg()
    assert (cfg.debug, cfg.fast_math, cfg.log_level) == (True, False, "warn")
    assert (cfg.verbose, cfg.kernel_profiler, cfg.advanced_optimization) == (True, False, True)
    x = ti.field(ti.i32, 4)

    @ti.kernel
    def read(i: ti.i32) -> ti.i32:
        return x[i]

    with pytest.raises(RuntimeError, match="out of bounds"):
        read(4)
    with pytest.raises(AssertionError, match="out of the bounds"):
        x[4] = 1  # Python scope too, an assertion as Taichi's debug mode
    ti.init(arch=arch, debug=False, print_ir=False)
    assert ti.lang.impl.current_cfg().debug is False
    monkeypatch.delenv("TI_DEBUG")
    monkeypatch.delenv("TI_FAST_MATH")
    monkeypatch.delenv("TI_LOG_LEVEL")
    spec = ti.init(arch=arch, _test_mode=True, flatten_if=True, log_level=ti.ERROR)
    assert (spec.flatten_if, spec.log_level, spec.gdb_trigger) == (True, ti.ERROR, False)
    ti.set_logging_level(ti.WARN)
    assert ti._logging.is_logging_effective(ti.ERROR)
    assert not ti.is_logging_effective(ti.INFO)
    ti.set_logging_level(ti.INFO)


def test_kernel_argument_errors_as_taichi():
    """A float passed for an integer parameter is an error on every arch, never
    truncated (Vulkan passed 1 for 1.2); a number for an ndarray names the argument;
    a kernel's arguments are immutable in its body."""

    @ti.kernel
    def takes_int(a: ti.i32) -> ti.i32:
        return a

    @ti.kernel
    def takes_array(a: ti.types.ndarray()):
        pass

    assert takes_int(3) == 3
    with pytest.raises(ti.TaichiRuntimeTypeError, match=r"Argument \(0,\) \(type=<class 'float'>\) cannot be converted into required type i32"):
        takes_int(1.2)
    with pytest.raises(ti.TaichiRuntimeTypeError, match="Invalid type for argument a, got 1.2"):
        takes_array(1.2)

    @ti.kernel
    def assigns(a: ti.i32) -> ti.i32:
        a += 1
        return a

    with pytest.raises(ti.TaichiSyntaxError, match='Kernel argument "a" is immutable in the kernel'):
        assigns(1)


def test_a_compile_that_imports_leaves_its_objects_in_the_oldest_generation():
    """A compile that imported modules (a process's first: xDSL, the compiler) moves the
    objects it made to the collector's oldest generation, so that young collections do
    not walk them again; cycles among them are still freed by a full collection. A
    compile that imports nothing keeps the usual collections however many objects it
    leaves, and objects the program froze itself stay frozen (then nothing moves)."""
    import gc
    import types
    import weakref

    from taichi_xdsl.frontends.python.lang import kernel

    class Node:
        pass

    def compile_like(imports: str | None) -> tuple[list, weakref.ref]:
        with kernel._no_cycle_collection():
            if imports is not None:
                sys.modules[imports] = types.ModuleType(imports)
            made = [[i] for i in range(5000)]
            cycle = Node()
            cycle.self = cycle
            dropped = weakref.ref(cycle)
            del cycle
        return made, dropped

    import sys

    gc.collect()
    try:
        made, dropped = compile_like("_ti_test_imported_by_a_compile")
        assert any(o is made for o in gc.get_objects(2)) and gc.get_freeze_count() == 0
        assert dropped() is not None  # moved, not freed ...
        gc.collect()
        assert dropped() is None  # ... and a full collection frees it

        more, _ = compile_like(None)
        assert not any(o is more for o in gc.get_objects(2))

        gc.freeze()
        frozen = gc.get_freeze_count()
        try:
            again, _ = compile_like("_ti_test_imported_by_another_compile")
            assert gc.get_freeze_count() > frozen // 2  # (a move would leave 0)
            assert not any(o is again for o in gc.get_objects(2))
        finally:
            gc.unfreeze()
    finally:
        sys.modules.pop("_ti_test_imported_by_a_compile", None)
        sys.modules.pop("_ti_test_imported_by_another_compile", None)


def test_compile_leaves_the_cycle_collector_as_it_was(arch):
    """A compile runs with the cycle collector off (kernel.py, _no_cycle_collection):
    after it, on success or failure, the collector is on again, and one the program
    turned off stays off."""
    import gc

    x = ti.field(ti.i32, shape=4)

    @ti.kernel
    def fill(v: ti.i32):
        for i in x:
            x[i] = v + i

    @ti.kernel
    def broken():
        for i in x:
            x[i] = undefined_name  # noqa: F821

    assert gc.isenabled()
    fill(1)
    assert gc.isenabled() and x.to_numpy().tolist() == [1, 2, 3, 4]
    with pytest.raises(Exception, match="undefined_name"):
        broken()
    assert gc.isenabled()
    gc.disable()
    try:
        @ti.kernel
        def again():
            for i in x:
                x[i] = 2 * i

        again()
        assert not gc.isenabled()
        assert x.to_numpy().tolist() == [0, 2, 4, 6]
    finally:
        gc.enable()
