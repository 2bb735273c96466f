"""
Direct calls (frontends/python/lang/direct_call.py): after its first call, a CPU kernel
of scalar parameters is called through a native entry that steps aside whenever the
general path would do something else. Each test arms a kernel (two plain calls), then
changes one thing the general path looks at and checks the call does what it did
before direct calls existed; on Vulkan (never armed) the same calls must agree.
"""

import traceback

import numpy as np
import pytest
import taichi_xdsl as ti
from taichi_xdsl.frontends.python.lang import kernel as _kernel

pytestmark = pytest.mark.usefixtures("program")


def _armed(k) -> bool:
    return type(k) is not _kernel.Kernel


def test_only_a_cpu_kernel_of_scalars_is_armed(arch):
    a = ti.field(ti.f32, shape=4)

    @ti.kernel
    def scalars(i: ti.i32, v: ti.f32):
        a[i] = v

    @ti.kernel
    def with_template(f: ti.template(), v: ti.f32):
        f[0] = v

    @ti.kernel
    def with_ndarray(x: ti.types.ndarray(), v: ti.f32):
        x[0] = v

    for _ in range(2):
        scalars(1, 2.5)
        with_template(a, 1.5)
        with_ndarray(np.zeros(2, np.float32), 1.0)
    assert _armed(scalars) == (arch is ti.cpu)
    assert not _armed(with_template) and not _armed(with_ndarray)
    assert isinstance(scalars, _kernel.Kernel)
    np.testing.assert_array_equal(a.to_numpy(), [1.5, 2.5, 0, 0])


def test_results_none_one_and_many(arch):
    @ti.kernel
    def nothing(x: ti.i32):
        pass

    @ti.kernel
    def one(x: ti.i32) -> ti.f64:
        return x * 0.5

    @ti.kernel
    def two(x: ti.i64, y: ti.f32) -> tuple[ti.i64, ti.f32]:
        return x * 2, y + 1

    for k in range(-2, 3):
        assert nothing(k) is None
        r = one(k)
        assert type(r) is float and r == k * 0.5
        pair = two(k * 2**40, 0.25)
        assert type(pair) is tuple and pair == (k * 2**41, 1.25)


def test_keywords_and_argument_types_take_the_general_path(arch):
    @ti.kernel
    def add(a: ti.i32, b: ti.f32) -> ti.f32:
        return a + b

    assert add(1, 0.5) == 1.5 and add(2, 0.5) == 2.5
    assert add(b=0.25, a=3) == 3.25  # keywords
    assert add(True, 0.5) == 1.5  # a bool for an integer
    assert add(np.int64(5), np.float32(0.5)) == 5.5  # NumPy scalars
    assert add(2**32 + 7, 0.0) == 7.0  # wrapped to 32 bits, as before
    assert add(4, 1) == 5.0  # an int for a float
    with pytest.raises((ti.TaichiTypeError, ti.TaichiRuntimeTypeError)):
        add(1.5, 0.5)
    with pytest.raises(ti.TaichiSyntaxError, match="missing"):
        add(1)
    with pytest.raises(ti.TaichiSyntaxError, match="Too many arguments"):
        add(1, 2.0, 3)
    assert add(6, 0.5) == 6.5


def test_an_error_names_the_callers_line(arch):
    @ti.kernel
    def take(x: ti.i32) -> ti.i32:
        return x

    take(1)
    take(2)
    with pytest.raises((ti.TaichiTypeError, ti.TaichiRuntimeTypeError)) as info:
        take("three")  # this line
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == __file__ and "this line" in (f.line or "") for f in frames)


def test_a_tape_started_after_the_kernel_was_armed_records_it(arch):
    x = ti.field(ti.f32, shape=(), needs_grad=True)
    loss = ti.field(ti.f32, shape=(), needs_grad=True)

    @ti.kernel
    def compute(scale: ti.f32):
        loss[None] = scale * x[None] ** 2

    x[None] = 3.0
    compute(1.0)
    compute(2.0)
    with ti.ad.Tape(loss=loss):
        compute(2.0)
    assert x.grad[None] == pytest.approx(12.0)  # d(2 x^2)/dx at 3
    compute(1.0)  # after the tape: a plain call again
    assert loss[None] == pytest.approx(9.0)
    with ti.ad.Tape(loss=loss):
        compute(3.0)
    assert x.grad[None] == pytest.approx(18.0)


def test_forward_mode_after_the_kernel_was_armed(arch):
    x = ti.field(ti.f32, shape=(), needs_dual=True)
    y = ti.field(ti.f32, shape=(), needs_dual=True)

    @ti.kernel
    def square(scale: ti.f32):
        y[None] = scale * x[None] ** 2

    x[None] = 2.0
    square(1.0)
    square(1.0)
    with ti.ad.FwdMode(loss=y, param=x):
        square(3.0)
    assert y.dual[None] == pytest.approx(12.0)  # d(3 x^2)/dx at 2
    square(1.0)
    assert y[None] == pytest.approx(4.0)


def test_aot_recording_after_the_kernel_was_armed(arch, tmp_path):
    v = ti.field(ti.i32, shape=())

    @ti.kernel
    def put(value: ti.i32):
        v[None] = value

    put(1)
    put(2)
    ti.aot.start_recording(tmp_path / "rec.yml")
    put(3)
    ti.aot.stop_recording()
    assert "- name: put" in (tmp_path / "rec.yml").read_text()
    assert v[None] == 3
    put(4)
    assert v[None] == 4


def test_a_new_program_gets_its_own_instance(arch):
    @ti.kernel
    def double(x: ti.i32) -> ti.i32:
        return 2 * x

    double(1)
    assert double(2) == 4
    ti.reset()
    assert not _armed(double)  # no old program's buffers stay held
    assert double(3) == 6  # a program of the default arch starts, as before
    ti.init(arch=arch, kernel_profiler=True)
    v = ti.field(ti.i32, shape=())

    @ti.kernel
    def put(value: ti.i32):
        v[None] = value

    for k in range(3):
        put(k)
        assert double(k) == 2 * k
    assert v[None] == 2
    assert ti.profiler.query_kernel_profiler_info("put").counter == 3
    assert ti.profiler.query_kernel_profiler_info("double").counter == 3
    assert not _armed(put)  # the profiler times every call on the general path


def test_a_new_field_moves_the_root_of_an_armed_kernel(arch):
    a = ti.field(ti.i64, shape=())

    @ti.kernel
    def put(value: ti.i64):
        a[None] = value

    put(1)
    put(2)
    for n in range(6):
        b = ti.field(ti.f32, shape=1 << (8 + 2 * n))  # each a larger root
        b.fill(0.5)
        put(100 + n)
        assert a[None] == 100 + n
        assert b[(1 << (8 + 2 * n)) - 1] == 0.5


def test_an_entry_kept_past_its_program_takes_the_general_path(arch):
    """A direct entry held after its program ended (the builtin alone) runs nothing of
    the old program: it calls the general path, which starts a new one."""

    @ti.kernel
    def inc(x: ti.i32) -> ti.i32:
        return x + 1

    inc(1)
    assert inc(2) == 3
    kept = type(inc).__call__  # the builtin on CPU, the plain function elsewhere
    ti.reset()
    ti.init(arch=arch)
    got = kept(41) if arch is ti.cpu else kept(inc, 41)
    assert got == 42
    assert inc(5) == 6


@pytest.mark.cpu_only(
    "direct calls exist on the CPU alone; Vulkan launches from several Python threads at "
    "once return wrong values or hang (so on main before direct calls: left for the "
    "Vulkan runtime)"
)
def test_threads_calling_one_armed_kernel(arch):
    import threading

    @ti.kernel
    def scale(x: ti.i64, y: ti.f64) -> ti.f64:
        return x * y

    scale(1, 1.0)
    scale(2, 1.0)
    wrong: list[tuple[int, float]] = []

    def work(seed: int) -> None:
        for k in range(2000):
            got = scale(seed * 10_000 + k, 0.5)
            if got != (seed * 10_000 + k) * 0.5:
                wrong.append((k, got))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong
