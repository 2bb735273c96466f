"""
Frontend errors: each names the file and line, shows the source line, and says what is
wrong; none crashes the interpreter or leaves the program unusable.
"""

import re
import warnings

import numpy as np
import pytest
import taichi_xdsl as ti

THIS_FILE = __file__


@pytest.fixture(autouse=True)
def program():
    ti.init(arch=ti.cpu)
    yield
    ti.reset()


def _line_of(snippet: str) -> int:
    with open(THIS_FILE) as f:
        for n, line in enumerate(f, 1):
            if snippet in line and "_line_of" not in line:
                return n
    raise AssertionError(snippet)


def test_lambda_is_unsupported_syntax():
    @ti.kernel
    def k():
        y = lambda t: t  # noqa: F841

    with pytest.raises(ti.TaichiSyntaxError) as info:
        k()
    message = str(info.value)
    line = _line_of("y = lambda t: t")
    assert message.startswith(f'\nFile "{THIS_FILE}", line {line}, in k:\n')
    assert message.endswith(
        "\n        y = lambda t: t  # noqa: F841\n"
        "            ^^^^^^^^^^^\n"
        "Unsupported node \"Lambda\": unsupported syntax 'lambda'"
    )


@pytest.mark.parametrize(
    "body, expected",
    [
        ("try_stmt", "unsupported syntax 'try'"),
        ("with_stmt", "unsupported syntax 'with'"),
        ("set_comp", "unsupported syntax"),
    ],
)
def test_other_unsupported_syntax(body, expected):
    @ti.kernel
    def try_stmt():
        try:
            pass
        except Exception:  # noqa: BLE001, S110 - the kernel must reject this syntax
            pass

    @ti.kernel
    def with_stmt():
        with open("x"):
            pass

    @ti.kernel
    def set_comp():
        a = {i for i in range(3)}  # noqa: F841

    kernel = {"try_stmt": try_stmt, "with_stmt": with_stmt, "set_comp": set_comp}[body]
    with pytest.raises(ti.TaichiSyntaxError, match=expected):
        kernel()


def test_undefined_name():
    @ti.kernel
    def k() -> ti.i32:
        return undefined_thing + 1  # noqa: F821

    with pytest.raises(ti.TaichiNameError) as info:
        k()
    assert 'Name "undefined_thing" is not defined' in str(info.value)
    assert f", line {_line_of('return undefined_thing + 1')}, in k:" in str(info.value)


def test_variable_defined_in_branch_is_not_visible_after_it():
    @ti.kernel
    def k(c: ti.i32) -> ti.i32:
        if c > 0:
            t = 1
        return t

    with pytest.raises(ti.TaichiNameError, match='"t" is not defined'):
        k(1)


def test_bitwise_on_floats_is_a_type_error():
    @ti.kernel
    def k(x: ti.f32) -> ti.i32:
        return x & 1

    with pytest.raises(ti.TaichiTypeError) as info:
        k(1.0)
    assert "unsupported operand type(s) for '&': 'f32' and 'i32'" in str(info.value)
    assert "return x & 1" in str(info.value)


def test_float_index_is_a_type_error():
    x = ti.field(ti.f32, shape=4)

    @ti.kernel
    def k(f: ti.f32):
        x[f] = 1

    with pytest.raises(ti.TaichiTypeError, match="an index must be an integer"):
        k(1.0)


def test_wrong_number_of_indices():
    x = ti.field(ti.f32, shape=(4, 4))

    @ti.kernel
    def k():
        x[1] = 0

    with pytest.raises(
        ti.TaichiSyntaxError, match="2-d field or ndarray is indexed with 1"
    ):
        k()


def test_break_in_parallel_loop():
    @ti.kernel
    def k():
        for i in range(10):
            if i > 3:
                break

    with pytest.raises(ti.TaichiSyntaxError, match="serialize=True"):
        k()


def test_return_inside_loop():
    @ti.kernel
    def k() -> ti.i32:
        for i in range(3):
            return i
        return 0

    with pytest.raises(ti.TaichiSyntaxError, match="'return' inside a loop"):
        k()


def test_missing_annotation():
    @ti.kernel
    def k(a):
        pass

    with pytest.raises(ti.TaichiSyntaxError, match="needs a type annotation"):
        k(1)


def test_python_function_with_taichi_values():
    def helper(v):
        return v + 1

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return helper(a)

    with pytest.raises(ti.TaichiSyntaxError, match="decorate it with @ti.func"):
        k(1)


def test_kernel_calling_kernel():
    @ti.kernel
    def inner():
        pass

    @ti.kernel
    def outer():
        inner()

    with pytest.raises(ti.TaichiSyntaxError, match="a kernel cannot call a kernel"):
        outer()


def test_compile_time_python_error_is_located():
    @ti.kernel
    def k() -> ti.i32:
        return 1 // 0

    with pytest.raises(ti.TaichiCompilationError) as info:
        k()
    assert "ZeroDivisionError" in str(info.value)
    assert "return 1 // 0" in str(info.value)


def test_error_inside_ti_func_points_at_the_func():
    @ti.func
    def bad(x):
        return x & 1.5

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return bad(a)

    with pytest.raises(ti.TaichiTypeError) as info:
        k(1)
    assert f", line {_line_of('return x & 1.5')}, in " in str(info.value)


def test_program_still_works_after_errors():
    @ti.kernel
    def bad():
        y = lambda t: t  # noqa: F841

    @ti.kernel
    def good(a: ti.types.ndarray(dtype=ti.i32, ndim=1)):
        for i in a:
            a[i] = i

    with pytest.raises(ti.TaichiSyntaxError):
        bad()
    with pytest.raises(ti.TaichiSyntaxError):
        bad()  # the same error again, not a crash
    a = np.zeros(4, dtype=np.int32)
    good(a)
    assert a.tolist() == [0, 1, 2, 3]


def test_unavailable_arch():
    # As Taichi: an arch this machine lacks falls back to the CPU with a warning, or
    # raises with enable_fallback=False; a list is tried in order.
    with pytest.warns(UserWarning, match="Arch=cuda is not supported, falling back to CPU"):
        ti.init(arch=ti.cuda)
    assert ti.lang.impl.current_cfg().arch is ti.cpu
    with pytest.raises(RuntimeError, match="Arch=metal is not supported"):
        ti.init(arch=ti.metal, enable_fallback=False)
    ti.init(arch=[ti.cuda, ti.cpu, ti.vulkan])
    assert ti.lang.impl.current_cfg().arch is ti.cpu


def test_unknown_init_option():
    with pytest.raises(KeyError, match="no_such_option"):
        ti.init(arch=ti.cpu, no_such_option=1)
    ti.init(arch=ti.cpu, offline_cache=False, log_level="warn", kernel_profiler=False)
    ti.init(arch=ti.cpu, gdb_trigger=False, cuda_stack_limit=8192)
    assert ti.lang.impl.current_cfg().ignored["cuda_stack_limit"] == 8192


def test_an_ignored_init_option_warns_once():
    from taichi_xdsl.frontends.python.lang import program

    # (device_memory_GB is honoured now: it sizes sparse pools)
    program._WARNED_OPTIONS.discard("cuda_stack_limit")
    with pytest.warns(UserWarning, match=r"ti.init\(cuda_stack_limit=...\)"):
        ti.init(arch=ti.cpu, cuda_stack_limit=2048)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ti.init(arch=ti.cpu, cuda_stack_limit=2048)


def test_scalar_argument_of_wrong_kind():
    @ti.kernel
    def k(a: ti.f32):
        pass

    with pytest.raises(ti.TaichiRuntimeTypeError, match="must be a number"):
        k("hello")


def test_vector_kernel_argument_of_the_wrong_shape_is_a_clear_error():
    ti.init(arch=ti.cpu)

    @ti.kernel
    def k(v: ti.math.vec3) -> ti.f32:
        return v.x

    assert k(ti.math.vec3(1, 2, 3)) == 1
    with pytest.raises(ti.TaichiRuntimeTypeError, match="'v' is expected to be a Matrix with shape"):
        k(ti.math.vec2(1, 2))


def test_struct_kernel_argument_of_another_struct_type_is_a_runtime_type_error():
    """A call-time argument that does not convert into its parameter's type raises
    TaichiRuntimeTypeError, as in Taichi (a struct with a vec2 for a vec3 member, a
    missing member), not the compile-time TaichiTypeError."""
    ti.init(arch=ti.cpu)
    sphere = ti.types.struct(center=ti.math.vec3, radius=float)
    circle = ti.types.struct(center=ti.math.vec2, radius=float)

    @ti.kernel
    def radius(s: sphere) -> ti.f32:
        return s.radius

    assert radius(sphere(center=ti.math.vec3(1, 2, 3), radius=2.5)) == 2.5
    with pytest.raises(ti.TaichiRuntimeTypeError, match="'s' is expected to be a Matrix"):
        radius(circle(center=ti.math.vec2(1, 2), radius=2.33))
    with pytest.raises(ti.TaichiRuntimeTypeError, match="has no member 'radius'"):
        radius({"center": ti.math.vec3(1, 2, 3)})


def test_lang_helpers_and_extensions():
    ti.init(arch=ti.cpu)
    assert ti.lang.impl.current_cfg().arch is ti.cpu
    assert ti.lang.impl.get_runtime().default_fp is ti.f32
    assert ti.lang.util.to_numpy_type(ti.i16) is np.int16
    assert ti.lang.util.to_taichi_type(np.float64) is ti.f64
    assert ti.lang.misc.get_host_arch_list() == [ti.cpu]
    assert ti.lang.misc.is_arch_supported(ti.cpu)
    assert not ti.lang.misc.is_arch_supported(ti.cuda)
    assert ti.is_extension_supported(ti.cpu, ti.extension.data64)
    assert ti.is_extension_supported(ti.cpu, ti.extension.sparse)  # pointer, bitmasked, dynamic
    assert ti.is_extension_supported(ti.cpu, ti.extension.quant)  # test_quant.py
    assert not ti.is_extension_supported(ti.cpu, ti.extension.mesh)
    assert not ti.is_extension_supported(ti.cuda, ti.extension.data64)
    assert not ti._lib.core.with_cuda() and not ti._lib.core.with_metal()
    ti.init(arch=ti.cpu, log_level=ti.CRITICAL)
    ti.init(arch=ti.cpu)
    compiled = ti.lang.impl.get_runtime().get_num_compiled_functions()

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return a

    k(1)
    k(2)
    assert ti.lang.impl.get_runtime().get_num_compiled_functions() == compiled + 1


def test_arguments_taichi_removed_raise_its_errors():
    """ti.graph.Arg's element_shape / shape / channel_format / num_channels were removed
    in Taichi 1.7: each raises Taichi's error naming what replaces it;
    ti.experimental.real_func still works, with a DeprecationWarning."""
    kinds = ti.graph.ArgKind
    with pytest.raises(ti.TaichiRuntimeError, match="element_shape argument for scalar"):
        ti.graph.Arg(kinds.SCALAR, "x", dtype=ti.f32, element_shape=())
    with pytest.raises(ti.TaichiRuntimeError, match="Please use vector or matrix data type"):
        ti.graph.Arg(kinds.NDARRAY, "x", ti.f32, ndim=1, element_shape=(1,))
    with pytest.raises(ti.TaichiRuntimeError, match="Please use ndim instead"):
        ti.graph.Arg(kinds.TEXTURE, "x", shape=(128, 128))
    with pytest.raises(ti.TaichiRuntimeError, match="for texture are deprecated in v1.6.0, and they are removed in v1.7.0. Please use fmt instead"):
        ti.graph.Arg(kinds.RWTEXTURE, "x", ndim=2, channel_format=ti.f32, num_channels=1)
    assert ti.graph.Arg(kinds.NDARRAY, "x", ti.f32, ndim=1).ndim == 1
    with pytest.warns(DeprecationWarning, match="Use ti.real_func instead"):

        @ti.experimental.real_func
        def twice(a: ti.i32) -> ti.i32:
            return a * 2

    @ti.kernel
    def k(a: ti.i32) -> ti.i32:
        return twice(a)

    assert k(21) == 42


def test_primitive_type_literals_as_taichi():
    """`ti.f32(0)` / `ti.i32(0.0)` of a literal of the other kind, several arguments, or
    a vector are errors (as Taichi's); a literal of the right kind and a variable work."""

    @ti.kernel
    def ok(x: ti.i32) -> ti.f32:
        return ti.f32(1.5) + ti.f32(x) + ti.i32(-2)

    assert ok(3) == 2.5
    @ti.kernel
    def int_literal_as_float():
        a = ti.f32(0)

    @ti.kernel
    def float_literal_as_int():
        a = ti.i32(0.0)

    @ti.kernel
    def two_arguments():
        a = ti.i64(1, 2)

    @ti.kernel
    def of_a_vector():
        a = ti.f16(ti.Vector([1]))

    with pytest.raises(ti.TaichiTypeError, match="Integer literals must be annotated"):
        int_literal_as_float()
    with pytest.raises(ti.TaichiTypeError, match="Floating-point literals must be annotated"):
        float_literal_as_int()
    with pytest.raises(ti.TaichiSyntaxError, match="only decorate a single expression"):
        two_arguments()
    with pytest.raises(ti.TaichiSyntaxError, match="compound type"):
        of_a_vector()


def test_func_vector_parameter_of_another_size_is_an_error():
    vec3 = ti.types.vector(3, ti.f32)

    @ti.func
    def first(a: vec3) -> ti.f32:
        return a[0]

    @ti.kernel
    def k() -> ti.f32:
        x = ti.Matrix([3, 4])
        return first(x)

    with pytest.raises(ti.TaichiSyntaxError, match="Argument a is expected to be a Matrix with n 3, but got 2"):
        k()


def test_error_format_shows_each_inlining_call_outermost_first():
    """Taichi's layout: a `File ..., line N, in f:` block per function, from the kernel
    down to the ti.func at fault, each with the source and carets under the construct."""

    @ti.func
    def inner():
        return missing_name  # noqa: F821

    @ti.func
    def outer():
        return inner()

    @ti.kernel
    def k() -> ti.i32:
        return outer()

    with pytest.raises(ti.TaichiNameError) as info:
        k()
    blocks = str(info.value).split("\nFile ")
    assert blocks[0] == ""
    assert blocks[1].startswith(f'"{THIS_FILE}", line {_line_of("return outer()")}, in k:')
    assert blocks[1].endswith("\n        return outer()\n               ^^^^^^^")
    assert f", line {_line_of('return inner()')}, in outer:" in blocks[2]
    assert blocks[3].endswith(
        "\n        return missing_name  # noqa: F821\n"
        "               ^^^^^^^^^^^^\n"
        'Name "missing_name" is not defined'
    )


def test_error_format_expands_tabs_and_marks_a_loop_header():
    source = (
        "import taichi_xdsl as ti\n"
        "@ti.kernel\n"
        "def k():\n"
        "\tfor i in range(1,\t2, 3):\n"
        "\t\tpass\n"
    )
    namespace: dict = {}
    import linecache

    linecache.cache["<tabbed>"] = (len(source), None, source.splitlines(True), "<tabbed>")
    exec(compile(source, "<tabbed>", "exec"), namespace)
    with pytest.raises(ti.TaichiCompilationError) as info:
        namespace["k"]()
    assert str(info.value) == (
        '\nFile "<tabbed>", line 4, in k:\n'
        "    for i in range(1,   2, 3):\n"
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "Range should have 1 or 2 arguments, found 3"
    )


def _k_loop_var_redeclared():
    i = 0
    for i in range(4):  # noqa: B007
        pass


def _k_nested_static():
    for _ in ti.static(ti.static(range(2))):
        pass


def _k_nested_grouped():
    for _ in ti.grouped(ti.grouped(range(2))):
        pass


def _k_static_element():
    a = ti.static([1, 2])
    a[0] = ti.static(3)


def _k_static_recreated():
    a = 1
    a = ti.static(2)  # noqa: F841


def _k_reannotated():
    a: ti.i32 = 1
    a: ti.f32 = 2.0  # noqa: F841


def _k_raise():
    raise ValueError()


def _k_nested_def():
    def inner():
        pass


def _k_break_outermost():
    for _ in range(4):
        break


def _k_static_continue_under_runtime_if():
    for _ in ti.static(range(3)):
        x = 0.5
        if x == 0.0:
            continue


@pytest.mark.parametrize(
    "body, message",
    [
        (_k_loop_var_redeclared, "Variable 'i' is already declared in the outer scope"),
        (_k_nested_static, "'ti.static' cannot be nested"),
        (_k_nested_grouped, "'ti.grouped' cannot be nested"),
        (_k_static_element, "Static assign cannot be used on elements in arrays"),
        (_k_static_recreated, "Recreating variables is not allowed"),
        (_k_reannotated, "already declared as i32; it cannot be annotated again as f32"),
        (_k_raise, 'Unsupported node "Raise"'),
        (_k_nested_def, "Function definition is not allowed in 'ti.kernel'"),
        (_k_break_outermost, "Cannot break in the outermost loop"),
        (_k_static_continue_under_runtime_if, "You are trying to `continue` a static `for`"),
    ],
    ids=lambda v: getattr(v, "__name__", "")[3:] if callable(v) else "",
)
def test_taichi_rejects_these_kernels(arch, body, message):
    ti.init(arch=arch)
    k = ti.kernel(body)
    with pytest.raises(ti.TaichiSyntaxError, match=re.escape(message)):
        k()


def test_unknown_string_annotation_fails_at_decoration():
    with pytest.raises(ti.TaichiSyntaxError, match=r"Invalid type annotation \(argument 1\) of Taichi kernel: nothing_here"):

        @ti.kernel
        def k(a: ti.i32, b: "nothing_here"):  # noqa: F821
            pass

    with pytest.raises(ti.TaichiSyntaxError, match="of Taichi function: nope"):

        @ti.func
        def f(a: "nope"):  # noqa: F821
            pass


def test_a_vector_is_no_condition(arch):
    """`if v:` on a vector was taken as always true (a wrong answer); Taichi refuses it."""
    ti.init(arch=arch)

    @ti.kernel
    def in_if(a: ti.i32) -> ti.i32:
        v = ti.Vector([a, 0])
        r = 0
        if v:
            r = 1
        return r

    @ti.kernel
    def in_if_exp(a: ti.i32) -> ti.i32:
        v = ti.Vector([a, 0])
        return 1 if v else 2

    with pytest.raises(ti.TaichiTypeError, match="`if` conditions must be an integer"):
        in_if(0)
    with pytest.raises(ti.TaichiSyntaxError, match='Please use "ti.select" instead'):
        in_if_exp(0)


def test_if_exp_selects_vectors(arch):
    ti.init(arch=arch)

    @ti.kernel
    def pick(c: ti.i32) -> ti.types.vector(2, ti.i32):
        a = ti.Vector([1, 2])
        b = ti.Vector([3, 4])
        return a if c else b

    @ti.kernel
    def broadcast(c: ti.i32) -> ti.types.vector(2, ti.f32):
        a = ti.Vector([1.5, 2.5])
        return a if c else 0.0

    @ti.kernel
    def mismatched(c: ti.i32):
        a = ti.Vector([1.0, 2.0])
        b = ti.Vector([1.0, 2.0, 3.0])
        d = a if c else b  # noqa: F841

    assert pick(1).to_list() == [1, 2] and pick(0).to_list() == [3, 4]
    assert broadcast(1).to_list() == [1.5, 2.5] and broadcast(0).to_list() == [0.0, 0.0]
    with pytest.raises(ti.TaichiTypeError, match="Cannot broadcast tensor to tensor"):
        mismatched(1)


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "sin", "tanh"])
def test_real_only_math_refuses_integers(name):
    fn = getattr(ti, name)

    @ti.kernel
    def k(a: ti.i32) -> ti.f32:
        return fn(a)

    with pytest.raises(ti.TaichiTypeError, match=f"'{name}' takes real inputs only, however 'i32'"):
        k(1)


def test_vector_assign_of_another_shape_names_both_types():
    f = ti.Vector.field(4, dtype=ti.i32, shape=())

    @ti.kernel
    def k():
        f[None] = ti.Vector([1, 2, 3])

    with pytest.raises(ti.TaichiTypeError, match=re.escape("cannot assign '[Tensor (3) i32]' to '[Tensor (4) i32]'")):
        k()


def test_static_assert_of_a_run_time_value():
    @ti.kernel
    def k(a: ti.i32):
        ti.static_assert(a > 0, "positive")

    with pytest.raises(ti.TaichiTypeError, match="Static assert with non-static condition"):
        k(1)


def test_if_exp_reads_a_vector_only_in_its_branch(arch):
    ti.init(arch=arch)
    v = ti.Vector.field(2, ti.f32, shape=4)

    @ti.kernel
    def k(n: ti.i32) -> ti.types.vector(2, ti.f32):
        v[3] = ti.Vector([1.0, 2.0])
        return v[n] if n < 4 else 7  # a guard: v[n] is not read when n >= 4

    assert k(3).to_list() == [1.0, 2.0]
    assert k(9).to_list() == [7.0, 7.0]


def _k_is():
    ti.static(1 is 2)  # noqa: F632


def _k_ndrange_triple():
    for _ in ti.ndrange((1, 2, 3)):
        pass


def _k_one_variable_two_dimensions():
    for _ in ti.ndrange(4, 4):
        pass


@pytest.mark.parametrize(
    "body, error, message",
    [
        (_k_is, ti.TaichiSyntaxError, 'Operator "is" in Taichi scope is not supported'),
        (_k_ndrange_triple, ti.TaichiSyntaxError, "Every argument of ndrange should be a scalar or a tuple/list like (begin, end)"),
        (_k_one_variable_two_dimensions, ti.TaichiSyntaxError, "number of the loop variables not equal to the dimension"),
    ],
    ids=["is", "ndrange_triple", "one_variable_two_dimensions"],
)
def test_taichi_rejects_these_loops_and_operators(body, error, message):
    k = ti.kernel(body)
    with pytest.raises(error, match=re.escape(message)):
        k()


def test_ndrange_of_floats_is_a_type_error():
    @ti.kernel
    def dynamic():
        for _ in ti.ndrange((1.1, 10.5)):
            pass

    @ti.kernel
    def static():
        for _ in ti.static(ti.ndrange(0.1, 0.2)):
            pass

    for k in (dynamic, static):
        with pytest.raises(ti.TaichiTypeError, match=r"should be an integer scalar or a tuple/list of \(int, int\)"):
            k()


def test_struct_for_with_one_variable_over_two_dimensions():
    x = ti.field(ti.f32, (3, 4))

    @ti.kernel
    def k():
        for i in x:
            x[i, 0] = 1.0

    with pytest.raises(ti.TaichiSyntaxError, match="number of the loop variables"):
        k()


def test_atomic_on_a_value_names_the_non_writable_target():
    @ti.kernel
    def k():
        y = ti.Vector([1, 2, 3])
        ti.atomic_min([3, 2, 1], y)

    with pytest.raises(ti.TaichiSyntaxError, match="cannot use a non-writable target as the first operand of 'atomic_min'"):
        k()


def test_static_of_a_kernel_argument():
    @ti.kernel
    def k(val: ti.f32):
        if ti.static(val > 0.5):
            pass

    with pytest.raises(ti.TaichiSyntaxError, match="must be compile-time constants"):
        k(1.0)


def test_negative_slice_of_a_vector():
    @ti.kernel
    def k(i: ti.i32) -> ti.i32:
        x = ti.Vector([i, i + 1, i + 2])
        return x[:-1].sum()

    with pytest.raises(ti.TaichiSyntaxError, match="Negative indices are not supported in Taichi kernels"):
        k(0)


def test_kernel_method_needs_data_oriented():
    class Plain:
        def __init__(self):
            self.x = ti.field(ti.f32, shape=4)

        @ti.kernel
        def fill(self):
            for i in self.x:
                self.x[i] = 1.0

    @ti.data_oriented
    class Marked(Plain):
        pass

    with pytest.raises(ti.TaichiSyntaxError, match="not decorated with @ti.data_oriented"):
        Plain().fill()
    marked = Marked()
    marked.fill()
    assert marked.x.to_numpy().tolist() == [1.0] * 4


def test_in_is_decided_inside_ti_static_only():
    @ti.kernel
    def static_in(a: ti.template()) -> ti.i32:
        b = 0
        if ti.static(a in [ti.i32, ti.u32]):
            b = 1
        return b

    @ti.kernel
    def plain_in(a: ti.template()) -> ti.i32:
        b = 0
        if a in [ti.i32, ti.u32]:
            b = 1
        return b

    assert static_in(ti.i32) == 1 and static_in(ti.f32) == 0
    with pytest.raises(ti.TaichiSyntaxError, match='"In" is only supported inside `ti.static`.'):
        plain_in(ti.i32)


def test_loop_unique_is_the_value_itself(arch):
    ti.init(arch=arch)
    x = ti.field(ti.i32, shape=8)
    y = ti.field(ti.i32, shape=8)

    @ti.kernel
    def scatter():
        for i in x:
            y[ti.loop_unique(x[i])] += i

    x.from_numpy(np.array([7, 6, 5, 4, 3, 2, 1, 0], np.int32))
    scatter()
    assert y.to_numpy().tolist() == [7, 6, 5, 4, 3, 2, 1, 0]
    assert ti.loop_unique(3) == 3


def test_arithmetic_on_a_whole_field_names_the_operand_type():
    # Taichi: "unsupported operand type(s) for *: 'Expr' and 'ScalarField'".
    x = ti.field(ti.i32, shape=())

    @ti.kernel
    def scale():
        a = ti.Vector([1, 1, 1])
        b = a * x  # noqa: F841

    with pytest.raises(ti.TaichiTypeError, match=r"unsupported operand type\(s\) for '\*': .*a field"):
        scale()
