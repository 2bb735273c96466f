"""
Group counts computed on the device, for range_for tasks whose bounds a task before them
stores in global temporaries (a sparse struct-for's list length, a dynamic SNode's
length): a one-invocation compute pass writes the counts, then the task is dispatched
with vkCmdDispatchIndirect from them.

Why: on a CPU device (Mesa's lavapipe) every invocation runs the whole task body, masked
when it has no iteration (gallivm does not branch around masked code), so the
DYNAMIC_GROUPS x LocalSize invocations a host-side guess dispatched cost as much as that
many iterations: test_mpm_particle_list's append over 10000 particles (65536
invocations) took 38 ms a launch on lavapipe, 6 ms with ceil(10000 / 256) groups.

    counter = GroupCounter(rt)
    counter.record(gtmps, counts, 0, begin=(0, None), end=(None, 0), local=256, cap=65535)
    rt.launch(task, buffers, indirect=(counts, 0))

The shader (SPIR-V 1.3, spirv-val clean; test_group_count.py assembles ASSEMBLY and
compares) reads push constants (i32) begin, begin_word, end, end_word, local, cap,
out_word; a bound whose word is >= 0 is word `word` of binding 0 (the global temporaries)
instead of the constant; it writes (min(ceil(max(end - begin, 0) / local), cap), 1, 1)
at word out_word of binding 1. A count of 0 dispatches nothing, as for a constant range
that is empty.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

ASSEMBLY = """\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %words ArrayStride 4
               OpMemberDecorate %Buffer 0 Offset 0
               OpDecorate %Buffer Block
               OpDecorate %bounds DescriptorSet 0
               OpDecorate %bounds Binding 0
               OpDecorate %groups DescriptorSet 0
               OpDecorate %groups Binding 1
               OpMemberDecorate %Params 0 Offset 0
               OpMemberDecorate %Params 1 Offset 4
               OpMemberDecorate %Params 2 Offset 8
               OpMemberDecorate %Params 3 Offset 12
               OpMemberDecorate %Params 4 Offset 16
               OpMemberDecorate %Params 5 Offset 20
               OpMemberDecorate %Params 6 Offset 24
               OpDecorate %Params Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %int = OpTypeInt 32 1
       %bool = OpTypeBool
      %words = OpTypeRuntimeArray %int
     %Buffer = OpTypeStruct %words
  %BufferPtr = OpTypePointer StorageBuffer %Buffer
     %IntPtr = OpTypePointer StorageBuffer %int
     %Params = OpTypeStruct %int %int %int %int %int %int %int
  %ParamsPtr = OpTypePointer PushConstant %Params
   %ParamPtr = OpTypePointer PushConstant %int
     %bounds = OpVariable %BufferPtr StorageBuffer
     %groups = OpVariable %BufferPtr StorageBuffer
     %params = OpVariable %ParamsPtr PushConstant
         %c0 = OpConstant %int 0
         %c1 = OpConstant %int 1
         %c2 = OpConstant %int 2
         %c3 = OpConstant %int 3
         %c4 = OpConstant %int 4
         %c5 = OpConstant %int 5
         %c6 = OpConstant %int 6
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %p0 = OpAccessChain %ParamPtr %params %c0
    %b_const = OpLoad %int %p0
         %p1 = OpAccessChain %ParamPtr %params %c1
     %b_word = OpLoad %int %p1
    %b_fixed = OpSLessThan %bool %b_word %c0
      %b_at = OpSelect %int %b_fixed %c0 %b_word
        %pb = OpAccessChain %IntPtr %bounds %c0 %b_at
     %b_read = OpLoad %int %pb
      %begin = OpSelect %int %b_fixed %b_const %b_read
         %p2 = OpAccessChain %ParamPtr %params %c2
    %e_const = OpLoad %int %p2
         %p3 = OpAccessChain %ParamPtr %params %c3
     %e_word = OpLoad %int %p3
    %e_fixed = OpSLessThan %bool %e_word %c0
       %e_at = OpSelect %int %e_fixed %c0 %e_word
         %pe = OpAccessChain %IntPtr %bounds %c0 %e_at
     %e_read = OpLoad %int %pe
        %end = OpSelect %int %e_fixed %e_const %e_read
         %p4 = OpAccessChain %ParamPtr %params %c4
      %local = OpLoad %int %p4
         %p5 = OpAccessChain %ParamPtr %params %c5
        %cap = OpLoad %int %p5
         %p6 = OpAccessChain %ParamPtr %params %c6
        %out = OpLoad %int %p6
       %span = OpISub %int %end %begin
      %empty = OpSLessThan %bool %span %c0
          %n = OpSelect %int %empty %c0 %span
          %q = OpSDiv %int %n %local
     %q_full = OpIMul %int %q %local
       %rest = OpISub %int %n %q_full
    %partial = OpSGreaterThan %bool %rest %c0
      %extra = OpSelect %int %partial %c1 %c0
      %count = OpIAdd %int %q %extra
       %over = OpSGreaterThan %bool %count %cap
          %g = OpSelect %int %over %cap %count
         %gx = OpAccessChain %IntPtr %groups %c0 %out
               OpStore %gx %g
       %out1 = OpIAdd %int %out %c1
         %gy = OpAccessChain %IntPtr %groups %c0 %out1
               OpStore %gy %c1
       %out2 = OpIAdd %int %out %c2
         %gz = OpAccessChain %IntPtr %groups %c0 %out2
               OpStore %gz %c1
               OpReturn
               OpFunctionEnd
"""
"""The shader's source (spirv-as --target-env vulkan1.1)."""

SPIRV = base64.b64decode(
    "AwIjBwADAQAAAAcAQAAAAAAAAAARAAIAAQAAAA4AAwAAAAAAAQAAAA8ABQAFAAAAAQAAAG1haW4AAAAA"
    "EAAGAAEAAAARAAAAAQAAAAEAAAABAAAARwAEAAIAAAAGAAAABAAAAEgABQADAAAAAAAAACMAAAAAAAAA"
    "RwADAAMAAAACAAAARwAEAAQAAAAiAAAAAAAAAEcABAAEAAAAIQAAAAAAAABHAAQABQAAACIAAAAAAAAA"
    "RwAEAAUAAAAhAAAAAQAAAEgABQAGAAAAAAAAACMAAAAAAAAASAAFAAYAAAABAAAAIwAAAAQAAABIAAUA"
    "BgAAAAIAAAAjAAAACAAAAEgABQAGAAAAAwAAACMAAAAMAAAASAAFAAYAAAAEAAAAIwAAABAAAABIAAUA"
    "BgAAAAUAAAAjAAAAFAAAAEgABQAGAAAABgAAACMAAAAYAAAARwADAAYAAAACAAAAEwACAAcAAAAhAAMA"
    "CAAAAAcAAAAVAAQACQAAACAAAAABAAAAFAACAAoAAAAdAAMAAgAAAAkAAAAeAAMAAwAAAAIAAAAgAAQA"
    "CwAAAAwAAAADAAAAIAAEAAwAAAAMAAAACQAAAB4ACQAGAAAACQAAAAkAAAAJAAAACQAAAAkAAAAJAAAA"
    "CQAAACAABAANAAAACQAAAAYAAAAgAAQADgAAAAkAAAAJAAAAOwAEAAsAAAAEAAAADAAAADsABAALAAAA"
    "BQAAAAwAAAA7AAQADQAAAA8AAAAJAAAAKwAEAAkAAAAQAAAAAAAAACsABAAJAAAAEQAAAAEAAAArAAQA"
    "CQAAABIAAAACAAAAKwAEAAkAAAATAAAAAwAAACsABAAJAAAAFAAAAAQAAAArAAQACQAAABUAAAAFAAAA"
    "KwAEAAkAAAAWAAAABgAAADYABQAHAAAAAQAAAAAAAAAIAAAA+AACABcAAABBAAUADgAAABgAAAAPAAAA"
    "EAAAAD0ABAAJAAAAGQAAABgAAABBAAUADgAAABoAAAAPAAAAEQAAAD0ABAAJAAAAGwAAABoAAACxAAUA"
    "CgAAABwAAAAbAAAAEAAAAKkABgAJAAAAHQAAABwAAAAQAAAAGwAAAEEABgAMAAAAHgAAAAQAAAAQAAAA"
    "HQAAAD0ABAAJAAAAHwAAAB4AAACpAAYACQAAACAAAAAcAAAAGQAAAB8AAABBAAUADgAAACEAAAAPAAAA"
    "EgAAAD0ABAAJAAAAIgAAACEAAABBAAUADgAAACMAAAAPAAAAEwAAAD0ABAAJAAAAJAAAACMAAACxAAUA"
    "CgAAACUAAAAkAAAAEAAAAKkABgAJAAAAJgAAACUAAAAQAAAAJAAAAEEABgAMAAAAJwAAAAQAAAAQAAAA"
    "JgAAAD0ABAAJAAAAKAAAACcAAACpAAYACQAAACkAAAAlAAAAIgAAACgAAABBAAUADgAAACoAAAAPAAAA"
    "FAAAAD0ABAAJAAAAKwAAACoAAABBAAUADgAAACwAAAAPAAAAFQAAAD0ABAAJAAAALQAAACwAAABBAAUA"
    "DgAAAC4AAAAPAAAAFgAAAD0ABAAJAAAALwAAAC4AAACCAAUACQAAADAAAAApAAAAIAAAALEABQAKAAAA"
    "MQAAADAAAAAQAAAAqQAGAAkAAAAyAAAAMQAAABAAAAAwAAAAhwAFAAkAAAAzAAAAMgAAACsAAACEAAUA"
    "CQAAADQAAAAzAAAAKwAAAIIABQAJAAAANQAAADIAAAA0AAAArQAFAAoAAAA2AAAANQAAABAAAACpAAYA"
    "CQAAADcAAAA2AAAAEQAAABAAAACAAAUACQAAADgAAAAzAAAANwAAAK0ABQAKAAAAOQAAADgAAAAtAAAA"
    "qQAGAAkAAAA6AAAAOQAAAC0AAAA4AAAAQQAGAAwAAAA7AAAABQAAABAAAAAvAAAAPgADADsAAAA6AAAA"
    "gAAFAAkAAAA8AAAALwAAABEAAABBAAYADAAAAD0AAAAFAAAAEAAAADwAAAA+AAMAPQAAABEAAACAAAUA"
    "CQAAAD4AAAAvAAAAEgAAAEEABgAMAAAAPwAAAAUAAAAQAAAAPgAAAD4AAwA/AAAAEQAAAP0AAQA4AAEA"
)
"""ASSEMBLY, assembled."""

_PARAMS = struct.Struct("<7i")
COUNT_BYTES = 12
"""Bytes of one dispatch's counts (VkDispatchIndirectCommand: x, y, z as u32)."""


class GroupCounter:
    """The group-count pass of one runtime (its pipeline is made once)."""

    def __init__(self, rt: Any):
        self.rt = rt
        self.kernel = rt.load_kernel(
            SPIRV, entry="main", num_bindings=2, push_constant_bytes=_PARAMS.size,
            name="group_count",
        )

    def record(
        self,
        bounds: Any,
        counts: Any,
        slot: int,
        begin: tuple[int | None, int | None],
        end: tuple[int | None, int | None],
        local: int,
        cap: int,
    ) -> None:
        """
        Record the pass that writes the counts of slot `slot` of buffer `counts` (12
        bytes a slot) for a loop from `begin` to `end`, each (constant, None) or (None,
        byte offset in `bounds`), of `local` invocations a group, at most `cap` groups.
        """
        pc = _PARAMS.pack(*_bound(begin), *_bound(end), local, cap, slot * 3)
        self.rt.launch(self.kernel, [bounds, counts], 1, push_constants=pc)


def _bound(bound: tuple[int | None, int | None]) -> tuple[int, int]:
    value, offset = bound
    if offset is None:
        assert value is not None
        return value, -1
    return 0, offset // 4
