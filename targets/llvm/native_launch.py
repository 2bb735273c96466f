"""
A native Python entry point for kernels of serial tasks: one call from Python that
unpacks the scalar arguments, runs the tasks and boxes the return values, with no ctypes
and no Python frame in between.

    native = native_launcher(plan, buffers, offsets, launch_py_entry())  # or None
    result = native.call(root, (41, 1.5))   # a tuple, or NOT_RUN / FAILED (below)

Why: a small kernel's launch is mostly overhead. Through ctypes it costs a Python frame
that writes each argument through a ctypes view, plus the ctypes call itself (argument
conversion, libffi, GIL release): ~8k machine instructions a launch of the bench's
`launch` case (callgrind), where Numba's dispatcher needs ~2k. A CPython builtin
function (METH_FASTCALL) whose C body is the pool module's `ti_launch_py` (pool.py's IR,
below) does the same work in a few hundred.

`ti_launch_py(self, argv, argc)` is that body. `self` is the kernel's launch record (a
ctypes array; its data pointer sits right after the object header, checked at start-up
by `_layout_ok`); `argv` is (root, args): `root` must be the very object the record was
last pointed at, `args` a tuple of exactly the kernel's argument count, each an exact
`int` (integer slots; wrapped to the slot's width as ctypes does) or an exact `float` or
`int` (float slots). Then it runs the job record of `ti_run_serial` and returns a new
tuple of the return values. Anything else - a bool, a NumPy scalar, an int past 64 bits,
another root buffer - returns NotImplemented before any task runs, and the caller takes
the ctypes path, which converts or reports exactly as before. A task that sets the error
record makes it return None.

The GIL stays held while the tasks run, as Taichi 1.7 and Numba hold it through a launch
(another Python thread does not run during a serial kernel; releasing and taking back
the GIL would cost as much as the rest of the launch). Kernels with parallel loops go
through ctypes, which releases it.

The C API functions and type objects it uses are read from a table of addresses filled
from `ctypes.pythonapi` (no symbol is resolved by the JIT, so an AOT module's pool
object keeps working). The object layouts it relies on (ob_type at 8, a float's value at
16, a tuple's size at 16 and items at 24, a ctypes array's data pointer at 16; the
CPython 3.8-3.13 GIL builds) are checked on live objects once per process: where any
differs, no native launcher is built.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Sequence
from typing import Any

# Words of a launch record (i64 each); argument descriptors follow, then return kinds.
(
    R_NARGS,
    R_NRETS,
    R_ROOT,
    R_API,
    R_ARGS,
    R_RETURNS,
    R_JOB,
) = range(7)
R_DESCRIPTORS = 7

# Words of a direct record (DirectCall): the launch record it runs, where the epoch word
# is, the epoch it was armed at, the callables of a call it declines (after the epoch
# moved; otherwise), the error raiser.
D_LAUNCH, D_EPOCH_AT, D_EPOCH, D_FALLBACK, D_GENERAL, D_FAILED = range(6)

KINDS = {"i1": 1, "i8": 2, "i16": 3, "i32": 4, "i64": 5, "index": 5, "f32": 6, "f64": 7}
"""Slot kinds the native launcher converts; a plan with any other type gets none."""

API = (
    "PyLong_Type",
    "PyFloat_Type",
    "PyTuple_Type",
    "_Py_NotImplementedStruct",
    "_Py_NoneStruct",
    "PyLong_AsLongLong",
    "PyLong_AsDouble",
    "PyErr_Occurred",
    "PyErr_Clear",
    "Py_IncRef",
    "Py_DecRef",
    "PyLong_FromLongLong",
    "PyFloat_FromDouble",
    "PyTuple_New",
    "PyTuple_SetItem",
    "PyObject_Vectorcall",
)
"""The C API table's entries, in order (addresses of functions and objects); new entries
go at the end (the pool object of an AOT module reads the table by index)."""

LAUNCH_PY_IR = """
; -- the native Python entry of a serial kernel (native_launch.py) ---------------------

define private ptr @api(ptr %api, i64 %index) alwaysinline {{
  %p = getelementptr i64, ptr %api, i64 %index
  %f = load ptr, ptr %p
  ret ptr %f
}}

define private ptr @word(ptr %rec, i64 %index) alwaysinline {{
  %p = getelementptr i64, ptr %rec, i64 %index
  ret ptr %p
}}

; Returns a new reference to `obj`.
define private ptr @ref(ptr %api, ptr %obj) alwaysinline {{
  %incref = call ptr @api(ptr %api, i64 {Py_IncRef})
  call void %incref(ptr %obj)
  ret ptr %obj
}}

; 1 when a C API call just raised (the exception is cleared: the caller declines).
define private i1 @raised(ptr %api) {{
  %occurred = call ptr @api(ptr %api, i64 {PyErr_Occurred})
  %e = call ptr %occurred()
  %is = icmp ne ptr %e, null
  br i1 %is, label %clear, label %no
clear:
  %clear_fn = call ptr @api(ptr %api, i64 {PyErr_Clear})
  call void %clear_fn()
  ret i1 1
no:
  ret i1 0
}}

; Writes argument `obj` of slot kind `kind` at `dst`; 0 when it is not a value this
; path converts (nothing raised is left behind).
define private i1 @store_arg(ptr %api, ptr %obj, i64 %kind, ptr %dst) {{
entry:
  %typep = getelementptr i8, ptr %obj, i64 8
  %type = load ptr, ptr %typep
  %long_type = call ptr @api(ptr %api, i64 {PyLong_Type})
  %is_int = icmp eq ptr %type, %long_type
  %is_float_slot = icmp sge i64 %kind, 6
  br i1 %is_float_slot, label %float_slot, label %int_slot
int_slot:
  br i1 %is_int, label %int_value, label %decline
int_value:
  %as_ll = call ptr @api(ptr %api, i64 {PyLong_AsLongLong})
  %v = call i64 %as_ll(ptr %obj)
  %maybe = icmp eq i64 %v, -1
  br i1 %maybe, label %int_check, label %int_store
int_check:
  %bad = call i1 @raised(ptr %api)
  br i1 %bad, label %decline, label %int_store
int_store:
  switch i64 %kind, label %decline [
    i64 1, label %st_i1
    i64 2, label %st_i8
    i64 3, label %st_i16
    i64 4, label %st_i32
    i64 5, label %st_i64
  ]
st_i1:
  %nz = icmp ne i64 %v, 0
  %b = zext i1 %nz to i8
  store i8 %b, ptr %dst
  ret i1 1
st_i8:
  %v8 = trunc i64 %v to i8
  store i8 %v8, ptr %dst
  ret i1 1
st_i16:
  %v16 = trunc i64 %v to i16
  store i16 %v16, ptr %dst
  ret i1 1
st_i32:
  %v32 = trunc i64 %v to i32
  store i32 %v32, ptr %dst
  ret i1 1
st_i64:
  store i64 %v, ptr %dst
  ret i1 1
float_slot:
  %float_type = call ptr @api(ptr %api, i64 {PyFloat_Type})
  %is_float = icmp eq ptr %type, %float_type
  br i1 %is_float, label %float_value, label %float_from_int
float_value:
  %fvalp = getelementptr i8, ptr %obj, i64 16
  %fval = load double, ptr %fvalp
  br label %float_store
float_from_int:
  br i1 %is_int, label %int_to_float, label %decline
int_to_float:
  %as_d = call ptr @api(ptr %api, i64 {PyLong_AsDouble})
  %d = call double %as_d(ptr %obj)
  %dmaybe = fcmp oeq double %d, -1.0
  br i1 %dmaybe, label %d_check, label %float_store
d_check:
  %dbad = call i1 @raised(ptr %api)
  br i1 %dbad, label %decline, label %float_store
float_store:
  %x = phi double [ %fval, %float_value ], [ %d, %int_to_float ], [ %d, %d_check ]
  %is_f32 = icmp eq i64 %kind, 6
  br i1 %is_f32, label %st_f32, label %st_f64
st_f32:
  %x32 = fptrunc double %x to float
  store float %x32, ptr %dst
  ret i1 1
st_f64:
  store double %x, ptr %dst
  ret i1 1
decline:
  ret i1 0
}}

; A new reference to the Python value of return slot `src` of kind `kind` (NULL: raised).
define private ptr @box_return(ptr %api, ptr %src, i64 %kind) {{
entry:
  switch i64 %kind, label %f64 [
    i64 1, label %u8
    i64 2, label %i8
    i64 3, label %i16
    i64 4, label %i32
    i64 5, label %i64
    i64 6, label %f32
  ]
u8:
  %a = load i8, ptr %src
  %a64 = zext i8 %a to i64
  br label %int
i8:
  %b = load i8, ptr %src
  %b64 = sext i8 %b to i64
  br label %int
i16:
  %c = load i16, ptr %src
  %c64 = sext i16 %c to i64
  br label %int
i32:
  %d = load i32, ptr %src
  %d64 = sext i32 %d to i64
  br label %int
i64:
  %e64 = load i64, ptr %src
  br label %int
int:
  %v = phi i64 [ %a64, %u8 ], [ %b64, %i8 ], [ %c64, %i16 ], [ %d64, %i32 ], [ %e64, %i64 ]
  %from_ll = call ptr @api(ptr %api, i64 {PyLong_FromLongLong})
  %io = call ptr %from_ll(i64 %v)
  ret ptr %io
f32:
  %f = load float, ptr %src
  %fd = fpext float %f to double
  br label %float
f64:
  %g = load double, ptr %src
  br label %float
float:
  %x = phi double [ %fd, %f32 ], [ %g, %f64 ]
  %from_d = call ptr @api(ptr %api, i64 {PyFloat_FromDouble})
  %fo = call ptr %from_d(double %x)
  ret ptr %fo
}}

; Writes the `n` arguments at `items` into the record's argument buffer; 0 when one is
; not a value this path converts (those before it may be written).
define private i1 @store_args(ptr %rec, ptr %api, ptr %items, i64 %n) {{
entry:
  %argsbufp = call ptr @word(ptr %rec, i64 {R_ARGS})
  %argsbuf = load ptr, ptr %argsbufp
  br label %arg_loop
arg_loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %arg_stored ]
  %more = icmp slt i64 %i, %n
  br i1 %more, label %arg, label %stored
arg:
  %objp = getelementptr ptr, ptr %items, i64 %i
  %obj = load ptr, ptr %objp
  %desc_index = add i64 %i, {R_DESCRIPTORS}
  %descp = call ptr @word(ptr %rec, i64 %desc_index)
  %desc = load i64, ptr %descp
  %kind = lshr i64 %desc, 32
  %offset = and i64 %desc, 4294967295
  %dst = getelementptr i8, ptr %argsbuf, i64 %offset
  %ok = call i1 @store_arg(ptr %api, ptr %obj, i64 %kind, ptr %dst)
  %i1 = add i64 %i, 1
  br i1 %ok, label %arg_stored, label %declined
arg_stored:
  br label %arg_loop
declined:
  ret i1 0
stored:
  ret i1 1
}}

; A new reference to return value `j` of a kernel of `nargs` arguments (NULL: raised).
define private ptr @return_value(ptr %rec, ptr %api, i64 %nargs, i64 %j) {{
  %retbufp = call ptr @word(ptr %rec, i64 {R_RETURNS})
  %retbuf = load ptr, ptr %retbufp
  %ret_kinds = add i64 %nargs, {R_DESCRIPTORS}
  %kind_index = add i64 %ret_kinds, %j
  %rkindp = call ptr @word(ptr %rec, i64 %kind_index)
  %rkind = load i64, ptr %rkindp
  %src = getelementptr i64, ptr %retbuf, i64 %j
  %value = call ptr @box_return(ptr %api, ptr %src, i64 %rkind)
  ret ptr %value
}}

; A new tuple of the `nrets` return values (NULL: raised).
define private ptr @return_tuple(ptr %rec, ptr %api, i64 %nargs, i64 %nrets) {{
entry:
  %new_tuple = call ptr @api(ptr %api, i64 {PyTuple_New})
  %result = call ptr %new_tuple(i64 %nrets)
  %no_result = icmp eq ptr %result, null
  br i1 %no_result, label %error, label %ret_loop
ret_loop:
  %j = phi i64 [ 0, %entry ], [ %j1, %ret_set ]
  %more_rets = icmp slt i64 %j, %nrets
  br i1 %more_rets, label %ret, label %done
ret:
  %value = call ptr @return_value(ptr %rec, ptr %api, i64 %nargs, i64 %j)
  %j1 = add i64 %j, 1
  %no_value = icmp eq ptr %value, null
  br i1 %no_value, label %drop_result, label %ret_set
ret_set:
  %set_item = call ptr @api(ptr %api, i64 {PyTuple_SetItem})
  call i32 %set_item(ptr %result, i64 %j, ptr %value)
  br label %ret_loop
drop_result:
  %decref = call ptr @api(ptr %api, i64 {Py_DecRef})
  call void %decref(ptr %result)
  br label %error
error:
  ret ptr null
done:
  ret ptr %result
}}

define ptr @ti_launch_py(ptr %self, ptr %argv, i64 %argc) {{
entry:
  %recp = getelementptr i8, ptr %self, i64 16
  %rec = load ptr, ptr %recp
  %apip = call ptr @word(ptr %rec, i64 {R_API})
  %api = load ptr, ptr %apip
  %two = icmp eq i64 %argc, 2
  br i1 %two, label %check_root, label %decline
check_root:
  %root = load ptr, ptr %argv
  %rootp = call ptr @word(ptr %rec, i64 {R_ROOT})
  %want_root = load ptr, ptr %rootp
  %same_root = icmp eq ptr %root, %want_root
  br i1 %same_root, label %check_args, label %decline
check_args:
  %tuplep = getelementptr ptr, ptr %argv, i64 1
  %tuple = load ptr, ptr %tuplep
  %typep = getelementptr i8, ptr %tuple, i64 8
  %type = load ptr, ptr %typep
  %tuple_type = call ptr @api(ptr %api, i64 {PyTuple_Type})
  %is_tuple = icmp eq ptr %type, %tuple_type
  br i1 %is_tuple, label %check_size, label %decline
check_size:
  %sizep = getelementptr i8, ptr %tuple, i64 16
  %size = load i64, ptr %sizep
  %nargsp = call ptr @word(ptr %rec, i64 {R_NARGS})
  %nargs = load i64, ptr %nargsp
  %size_ok = icmp eq i64 %size, %nargs
  br i1 %size_ok, label %store, label %decline
store:
  %items = getelementptr i8, ptr %tuple, i64 24
  %stored = call i1 @store_args(ptr %rec, ptr %api, ptr %items, i64 %nargs)
  br i1 %stored, label %run, label %decline
run:
  %jobp = call ptr @word(ptr %rec, i64 {R_JOB})
  %job = load ptr, ptr %jobp
  %code = call i64 @ti_run_serial(ptr %job)
  %failed = icmp ne i64 %code, 0
  br i1 %failed, label %fail, label %returns
returns:
  %nretsp = call ptr @word(ptr %rec, i64 {R_NRETS})
  %nrets = load i64, ptr %nretsp
  %result = call ptr @return_tuple(ptr %rec, ptr %api, i64 %nargs, i64 %nrets)
  ret ptr %result
fail:
  %none = call ptr @api(ptr %api, i64 {_Py_NoneStruct})
  %r_none = call ptr @ref(ptr %api, ptr %none)
  ret ptr %r_none
decline:
  %ni = call ptr @api(ptr %api, i64 {_Py_NotImplementedStruct})
  %r_ni = call ptr @ref(ptr %api, ptr %ni)
  ret ptr %r_ni
}}

; -- the direct entry: the kernel object's own __call__ (DirectCall below) -------------

; `self` is the direct record (a ctypes array: D_* words). While the record's epoch is the
; epoch word's (nothing that changes what a call means happened since it was armed),
; positional arguments the native launcher converts run the kernel here and return
; what Kernel.__call__ would (None, the value, or a tuple of values); a task's error
; calls D_FAILED (which raises it); anything else is the general path's: D_FALLBACK
; (after the epoch moved: it arms the kernel again) or D_GENERAL called with the same
; arguments.
define ptr @ti_kernel_call(ptr %self, ptr %args, i64 %nargs, ptr %kwnames) {{
entry:
  %drecp = getelementptr i8, ptr %self, i64 16
  %drec = load ptr, ptr %drecp
  %recp = call ptr @word(ptr %drec, i64 {D_LAUNCH})
  %rec = load ptr, ptr %recp
  %apip = call ptr @word(ptr %rec, i64 {R_API})
  %api = load ptr, ptr %apip
  %epochatp = call ptr @word(ptr %drec, i64 {D_EPOCH_AT})
  %epochat = load ptr, ptr %epochatp
  %now = load i64, ptr %epochat
  %armedp = call ptr @word(ptr %drec, i64 {D_EPOCH})
  %armed = load i64, ptr %armedp
  %same = icmp eq i64 %now, %armed
  br i1 %same, label %check_kw, label %fallback
check_kw:
  %no_kw = icmp eq ptr %kwnames, null
  br i1 %no_kw, label %check_n, label %general
check_n:
  %nargsp = call ptr @word(ptr %rec, i64 {R_NARGS})
  %want = load i64, ptr %nargsp
  %n_ok = icmp eq i64 %nargs, %want
  br i1 %n_ok, label %store, label %general
store:
  %stored = call i1 @store_args(ptr %rec, ptr %api, ptr %args, i64 %nargs)
  br i1 %stored, label %run, label %general
run:
  %jobp = call ptr @word(ptr %rec, i64 {R_JOB})
  %job = load ptr, ptr %jobp
  %code = call i64 @ti_run_serial(ptr %job)
  %failed = icmp ne i64 %code, 0
  br i1 %failed, label %fail, label %returns
returns:
  %nretsp = call ptr @word(ptr %rec, i64 {R_NRETS})
  %nrets = load i64, ptr %nretsp
  switch i64 %nrets, label %many [
    i64 0, label %none
    i64 1, label %one
  ]
none:
  %none_obj = call ptr @api(ptr %api, i64 {_Py_NoneStruct})
  %r_none = call ptr @ref(ptr %api, ptr %none_obj)
  ret ptr %r_none
one:
  %value = call ptr @return_value(ptr %rec, ptr %api, i64 %nargs, i64 0)
  ret ptr %value
many:
  %tuple = call ptr @return_tuple(ptr %rec, ptr %api, i64 %nargs, i64 %nrets)
  ret ptr %tuple
fail:
  %failedfnp = call ptr @word(ptr %drec, i64 {D_FAILED})
  %failedfn = load ptr, ptr %failedfnp
  %vc = call ptr @api(ptr %api, i64 {PyObject_Vectorcall})
  %raised = call ptr %vc(ptr %failedfn, ptr null, i64 0, ptr null)
  ret ptr %raised
fallback:
  %fallbackp = call ptr @word(ptr %drec, i64 {D_FALLBACK})
  br label %decline
general:
  %generalp = call ptr @word(ptr %drec, i64 {D_GENERAL})
  br label %decline
decline:
  %declinep = phi ptr [ %fallbackp, %fallback ], [ %generalp, %general ]
  %declinefn = load ptr, ptr %declinep
  %vc2 = call ptr @api(ptr %api, i64 {PyObject_Vectorcall})
  %result = call ptr %vc2(ptr %declinefn, ptr %args, i64 %nargs, ptr %kwnames)
  ret ptr %result
}}
"""


def launch_py_ir() -> str:
    """`ti_launch_py`'s IR, to be compiled into the pool module (it calls ti_run_serial)."""
    constants = {name: index for index, name in enumerate(API)}
    constants.update(
        R_NARGS=R_NARGS,
        R_NRETS=R_NRETS,
        R_ROOT=R_ROOT,
        R_API=R_API,
        R_ARGS=R_ARGS,
        R_RETURNS=R_RETURNS,
        R_JOB=R_JOB,
        R_DESCRIPTORS=R_DESCRIPTORS,
        D_LAUNCH=D_LAUNCH,
        D_EPOCH_AT=D_EPOCH_AT,
        D_EPOCH=D_EPOCH,
        D_FALLBACK=D_FALLBACK,
        D_GENERAL=D_GENERAL,
        D_FAILED=D_FAILED,
    )
    return LAUNCH_PY_IR.format(**constants)


class _MethodDef(ctypes.Structure):
    _fields_ = [
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    ]


METH_FASTCALL = 0x0080
METH_KEYWORDS = 0x0002

_api_table: Any = None
_layout_checked: bool | None = None


def _layout_ok() -> bool:
    """Whether live objects have the layouts `ti_launch_py` reads (see the docstring)."""
    global _layout_checked
    if _layout_checked is None:
        _layout_checked = _check_layout()
    return _layout_checked


def _check_layout() -> bool:
    if sys.implementation.name != "cpython" or not hasattr(ctypes, "pythonapi"):
        return False
    if getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        return False  # a free-threaded build: another object header
    word = ctypes.c_uint64.from_address
    value, number, pair = 1234567, 2.75, (object(), object())
    array = (ctypes.c_uint64 * 2)()
    record = _DirectRecord()
    return (
        word(id(value) + 8).value == id(int)
        and word(id(number) + 8).value == id(float)
        and ctypes.c_double.from_address(id(number) + 16).value == number
        and word(id(pair) + 8).value == id(tuple)
        and word(id(pair) + 16).value == 2
        and word(id(pair) + 24).value == id(pair[0])
        and word(id(pair) + 32).value == id(pair[1])
        and word(id(array) + 16).value == ctypes.addressof(array)
        and word(id(record) + 16).value == ctypes.addressof(record)
    )


def _api() -> Any:
    """The C API table `ti_launch_py` reads (filled once)."""
    global _api_table
    if _api_table is None:
        api = ctypes.pythonapi
        table = (ctypes.c_uint64 * len(API))()
        for index, name in enumerate(API):
            table[index] = ctypes.cast(getattr(api, name), ctypes.c_void_p).value or 0
        if not all(table):
            raise OSError("the C API table has a missing entry")
        _api_table = table
    return _api_table


_new_function = None


def _builtin(method_def: _MethodDef, record: Any) -> Any:
    """A builtin function object calling `method_def.ml_meth` with `record` as self."""
    global _new_function
    if _new_function is None:
        fn = ctypes.pythonapi.PyCFunction_NewEx
        fn.restype = ctypes.py_object
        fn.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]
        _new_function = fn
    return _new_function(ctypes.addressof(method_def), record, None)


class NativeLauncher:
    """
    One kernel's native entry (`call(root, args)`), on launch buffers of its own (so it
    never shares them with the ctypes path of the same kernel).

    `call` returns a tuple of return values, NOT_RUN (NotImplemented: nothing ran, take
    the other path) or FAILED (None: a task set the error record of `buffers`).
    """

    def __init__(
        self,
        kinds: Sequence[int],
        return_kinds: Sequence[int],
        buffers: Any,
        offsets: Sequence[int],
        entry: int,
    ):
        self.buffers = buffers
        n = R_DESCRIPTORS + len(kinds) + len(return_kinds)
        record = (ctypes.c_uint64 * n)()
        record[R_NARGS] = len(kinds)
        record[R_NRETS] = len(return_kinds)
        record[R_API] = ctypes.addressof(_api())
        record[R_ARGS] = ctypes.addressof(buffers.args)
        record[R_RETURNS] = ctypes.addressof(buffers.returns)
        record[R_JOB] = buffers.serial_job
        for index, (kind, offset) in enumerate(zip(kinds, offsets)):
            record[R_DESCRIPTORS + index] = (kind << 32) | offset
        for index, kind in enumerate(return_kinds):
            record[R_DESCRIPTORS + len(kinds) + index] = kind
        self._record = record
        self._method = _MethodDef(b"launch", entry, METH_FASTCALL, None)
        self.call = _builtin(self._method, record)
        self.set_root(buffers.root)

    def set_root(self, root: object) -> None:
        """Point the launcher at `root` (None or a C-contiguous numpy array)."""
        self.buffers.set_root(root)
        self._record[R_ROOT] = id(self.buffers.root)  # held by the buffers

    def direct_call(
        self,
        entry: int,
        epoch_at: int,
        fallback: Callable[..., Any],
        general: Callable[..., Any],
        failed: Callable[[], Any],
    ) -> DirectCall:
        """A DirectCall running this launcher's kernel (see there)."""
        return DirectCall(self, entry, epoch_at, fallback, general, failed)


class _DirectRecord(ctypes.Array):  # type: ignore[type-arg]
    """The D_* words; a class of its own, so that the record can hold Python objects
    (its data pointer stays at offset 16: `_check_layout`)."""

    _type_ = ctypes.c_uint64
    _length_ = 6


class DirectCall:
    """
    A kernel's direct entry: `call(*args, **kwargs)` is a builtin function (`ti_kernel_call`
    above) meant to be a kernel object's own `__call__`, on the record of `launcher`.

    While `epoch_at` (the address of an i64 word) holds the epoch it was last armed at
    (`arm(epoch)`), a call of positional arguments the native launcher converts runs the
    kernel on the root the launcher points at and returns None, the value or a tuple of
    values; a task's error record makes it call `failed()` (which raises); anything else
    returns `fallback(*args, **kwargs)` once the epoch moved (it may arm the entry
    again), else `general(*args, **kwargs)`. The caller bumps the epoch word whenever a call
    would mean something else (another root, a hook) and arms it again after.
    """

    def __init__(
        self,
        launcher: NativeLauncher,
        entry: int,
        epoch_at: int,
        fallback: Callable[..., Any],
        general: Callable[..., Any],
        failed: Callable[[], Any],
    ):
        self.launcher = launcher
        record = _DirectRecord()
        # The record names these by address, and the builtin holds the record alone: a
        # builtin kept after its kernel is gone must not outlive what it points at.
        record.held = (launcher, fallback, general, failed)
        record[D_LAUNCH] = ctypes.addressof(launcher._record)
        record[D_EPOCH_AT] = epoch_at
        record[D_EPOCH] = 0
        record[D_FALLBACK] = id(fallback)
        record[D_GENERAL] = id(general)
        record[D_FAILED] = id(failed)
        self._record = record
        self._method = _MethodDef(b"__call__", entry, METH_FASTCALL | METH_KEYWORDS, None)
        self.call = _builtin(self._method, record)

    def arm(self, epoch: int, root: object) -> None:
        """Run calls directly on `root` while the epoch word holds `epoch`."""
        if root is not self.launcher.buffers.root:
            self.launcher.set_root(root)
        self._record[D_EPOCH] = epoch


NOT_RUN = NotImplemented
FAILED = None


def native_launcher(
    plan: Any, buffers: Any, offsets: Sequence[int], entry: int | None
) -> NativeLauncher | None:
    """
    The native launcher of `plan` on `buffers` (whose serial job record is set), or None:
    no `ti_launch_py` (`entry` None), an argument or return type it does not convert, or
    a Python whose object layouts differ.
    """
    from taichi_xdsl.targets.llvm.runtime import ScalarArg

    if entry is None or not buffers.serial_job or not _layout_ok():
        return None
    if not all(isinstance(arg, ScalarArg) and arg.dtype in KINDS for arg in plan.args):
        return None
    if not all(dtype in KINDS for dtype in plan.returns):
        return None
    try:
        return NativeLauncher(
            [KINDS[arg.dtype] for arg in plan.args],
            [KINDS[dtype] for dtype in plan.returns],
            buffers,
            offsets,
            entry,
        )
    except (OSError, AttributeError, ValueError):
        return None
