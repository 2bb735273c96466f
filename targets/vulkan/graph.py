"""
Compute graphs on Vulkan, recorded once and replayed: the dispatches of every kernel of a
`ti.graph` (or of a loaded AOT module's graph) go into one command buffer the first time
the graph runs (VulkanRuntime.begin_recording / end_recording), and each later run only
updates the argument buffers and replays it (VulkanRuntime.replay).

    graph = RecordedGraph(backend, [(kernel_a, ("x", None)), (kernel_b, ("x",))])
    graph.run(root, [(x_array, 2.0), (x_array,)])    # records, then replays
    graph.run(root, [(x_array, 3.0), (x_array,)])    # replays the same command buffer

What a run does: the host root is uploaded if the host wrote it (as for a launch); each
ndarray graph argument gets one device buffer, shared by every dispatch that names it
(uploaded before the replay, downloaded into the same NumPy array after it, as a launch
does); each dispatch gets its own argument buffer (scalars and ndarray shapes, packed as
utils/abi.py says), rewritten only when its contents change. The recording binds these
buffers: it is recorded again only when one of them had to change (an ndarray of another
size, a root buffer that grew) or the runtime dropped its descriptor sets.

Graphs whose kernels print, take textures, or run under debug checks are launched kernel
by kernel (`replayable` is False): their per-kernel host work (print records, error
checks, images) happens between dispatches.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
from taichi_xdsl.utils import abi
from taichi_xdsl.utils.errors import TaichiTypeError

from .backend import _INT, _PACK, VulkanBackend, VulkanKernel, _check_array
from .device_lock import serialized


class RecordedGraph:
    """
    A fixed sequence of Vulkan kernel launches, recorded into one command buffer.

    Args:
        backend: the VulkanBackend the kernels were compiled by.
        steps: per dispatch, the kernel and, per launch argument, the name of the graph
            argument an ndarray argument is bound to (None for a scalar).

    Attributes:
        recordings: how many times the command buffer was (re)recorded.
        replays: how many runs replayed it.
    """

    def __init__(
        self,
        backend: VulkanBackend,
        steps: Sequence[tuple[VulkanKernel, Sequence[str | None]]],
    ):
        self.backend = backend
        self.steps = [(kernel, tuple(names)) for kernel, names in steps]
        for kernel, names in self.steps:
            if len(names) != len(kernel.plan.args):
                raise TaichiTypeError(
                    f"kernel '{kernel.name}' takes {len(kernel.plan.args)} argument(s), "
                    f"the graph binds {len(names)}"
                )
        self.replayable = not getattr(backend, "debug", False) and all(
            not kernel.plan.prints
            and not kernel.plan.asserts
            and not getattr(kernel.plan, "num_textures", 0)
            for kernel, _ in self.steps
        )
        rt = backend.runtime
        self._arg_host = [bytearray(len(k._args_host)) for k, _ in self.steps]
        self._arg_uploaded: list[bytes | None] = [None] * len(self.steps)
        self._arg_buffers = [rt.allocate(len(h)) for h in self._arg_host]
        self._ndarrays: dict[str, Any] = {}  # graph argument name -> device buffer
        self._recording: Any = None
        self.recordings = 0
        self.replays = 0

    @property
    def recording(self) -> Any:
        """The runtime Recording replayed by `run` (None before the first run)."""
        return self._recording

    @serialized
    def run(self, root: np.ndarray | None, step_args: Sequence[Sequence[object]]) -> None:
        """
        Run every dispatch in order with its launch arguments (NumPy arrays for ndarrays,
        numbers for scalars), updating ndarrays in place.

        Raises:
            TaichiTypeError: an argument does not match its kernel's signature.
        """
        if len(step_args) != len(self.steps):
            raise TaichiTypeError(
                f"the graph has {len(self.steps)} dispatch(es), got {len(step_args)} "
                "argument lists"
            )
        if not self.replayable:
            for (kernel, _), args in zip(self.steps, step_args):
                kernel.launch(root, args)
            return
        backend = self.backend
        rt = backend.runtime
        segments = max(kernel.plan.root_segments for kernel, _ in self.steps)
        root_buffers = backend._root_for_launch(root, segments)
        arrays = self._bind_ndarrays(step_args)
        for name, array in arrays.items():
            backend.host_array_read(array)  # a resident ti.ndarray: its newest values
            rt.upload(self._ndarrays[name], array)
        for index, ((kernel, names), args) in enumerate(zip(self.steps, step_args)):
            host = self._arg_host[index]
            _pack(kernel, names, args, arrays, host)
            if host != self._arg_uploaded[index]:
                rt.upload(self._arg_buffers[index], host)
                self._arg_uploaded[index] = bytes(host)
        recording = self._recording
        if recording is None or not recording.valid:
            if recording is not None:
                rt.free_recording(recording)
                self._recording = None
            self._recording = recording = self._record(root_buffers)
        rt.replay(recording)
        self.replays += 1
        backend._root_launched(root)
        for name, array in arrays.items():
            rt.download(self._ndarrays[name], array)
            backend.host_array_written(array)

    def _bind_ndarrays(
        self, step_args: Sequence[Sequence[object]]
    ) -> dict[str, np.ndarray]:
        """Check the ndarray arguments; one device buffer per graph argument name."""
        rt = self.backend.runtime
        arrays: dict[str, np.ndarray] = {}
        for (kernel, names), args in zip(self.steps, step_args):
            if len(args) != len(names):
                raise TaichiTypeError(
                    f"kernel '{kernel.name}' takes {len(names)} argument(s), "
                    f"got {len(args)}"
                )
            for index, ((dtype, rank), name, value) in enumerate(
                zip(kernel.plan.args, names, args)
            ):
                if name is None or rank is None:
                    continue
                array = _check_array(kernel.name, index, value, dtype, rank)
                if arrays.setdefault(name, array) is not array:
                    raise TaichiTypeError(
                        f"graph argument '{name}' is bound to two different arrays"
                    )
        for name, array in arrays.items():
            buffer = self._ndarrays.get(name)
            nbytes = max(16, array.nbytes)
            if buffer is None or buffer.nbytes != nbytes:
                if buffer is not None:
                    rt.release(buffer)  # the recording binds it: recorded again
                self._ndarrays[name] = rt.allocate(nbytes)
        return arrays

    def _record(self, root_buffers: list[Any]) -> Any:
        backend = self.backend
        rt = backend.runtime
        recording = rt.begin_recording()
        try:
            for index, (kernel, names) in enumerate(self.steps):
                buffers = [
                    root_buffers[0],
                    kernel._gtmps,
                    self._arg_buffers[index],
                    kernel._returns,
                    backend._print_buffer,
                    backend._error_buffer,
                    *(self._ndarrays[n] for n in names if n is not None),
                    *root_buffers[1 : kernel.plan.root_segments],
                ]
                for task_index, (task, pipeline) in enumerate(
                    zip(kernel.plan.tasks, kernel.pipelines)
                ):
                    kernel.dispatch(task_index, task, pipeline, buffers)
        finally:
            rt.end_recording(recording)
        self.recordings += 1
        return recording

    def release(self) -> None:
        """Free the recording and the graph's buffers."""
        rt = self.backend.runtime
        if rt.closed:
            return
        if self._recording is not None:
            rt.free_recording(self._recording)
            self._recording = None
        for buffer in [*self._arg_buffers, *self._ndarrays.values()]:
            rt.release(buffer)
        self._arg_buffers = []
        self._ndarrays.clear()


def _pack(
    kernel: VulkanKernel,
    names: tuple[str | None, ...],
    args: Sequence[object],
    arrays: dict[str, np.ndarray],
    host: bytearray,
) -> None:
    """The argument buffer of one dispatch (utils/abi.py), as VulkanKernel packs it."""
    for index, ((dtype, rank), offset, name, value) in enumerate(
        zip(kernel.plan.args, kernel._arg_offsets, names, args)
    ):
        if rank is not None:
            if name is None:
                raise TaichiTypeError(
                    f"kernel '{kernel.name}' argument {index}: an ndarray needs a graph "
                    "argument"
                )
            for axis, extent in enumerate(arrays[name].shape):
                _INT.pack_into(host, offset + 8 + 8 * axis, extent)
            continue
        try:
            if not abi.scalar_fits(dtype, value):
                raise TypeError(type(value).__name__)
            if dtype in _PACK:
                _PACK[dtype].pack_into(host, offset, float(value))  # type: ignore[arg-type]
            else:
                bits = int(value) & ((1 << 64) - 1)  # type: ignore[call-overload]
                _INT.pack_into(host, offset, bits - (1 << 64) if bits >> 63 else bits)
        except (TypeError, ValueError, OverflowError, struct.error) as error:
            raise TaichiTypeError(
                f"kernel '{kernel.name}' argument {index} expects a {dtype} scalar, "
                f"got {value!r}"
            ) from error
