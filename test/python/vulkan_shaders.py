"""
Hand-written SPIR-V compute shaders for the Vulkan runtime's tests and benchmark, assembled
with `spirv-as` (spirv-tools) and checked with `spirv-val`.

Every shader loops grid-stride over `n` elements, so any group count up to the device limit
covers any `n`: `for (i = GlobalInvocationId.x; i < n; i += NumWorkgroups.x * 128)`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

LOCAL_SIZE = 128

# Shared header: two storage buffers of 32-bit elements at bindings 0 and 1, push constants
# {ELEM a; u32 n}, and the grid-stride loop skeleton; BODY computes element i.
_TEMPLATE = """\
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid %nwg
               OpExecutionMode %main LocalSize 128 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %nwg BuiltIn NumWorkgroups
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %Buf 0 Offset 0
               OpDecorate %Buf Block
               OpDecorate %src DescriptorSet 0
               OpDecorate %src Binding 0
               OpDecorate %dst DescriptorSet 0
               OpDecorate %dst Binding 1
               OpMemberDecorate %PC 0 Offset 0
               OpMemberDecorate %PC 1 Offset 4
               OpDecorate %PC Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
        %u32 = OpTypeInt 32 0
        %f32 = OpTypeFloat 32
       %bool = OpTypeBool
        %v3u = OpTypeVector %u32 3
        %arr = OpTypeRuntimeArray %ELEM
        %Buf = OpTypeStruct %arr
       %pBuf = OpTypePointer StorageBuffer %Buf
      %pElem = OpTypePointer StorageBuffer %ELEM
         %PC = OpTypeStruct %ELEM %u32
        %pPC = OpTypePointer PushConstant %PC
     %pPCelem = OpTypePointer PushConstant %ELEM
      %pPCu = OpTypePointer PushConstant %u32
        %pIn = OpTypePointer Input %v3u
        %src = OpVariable %pBuf StorageBuffer
        %dst = OpVariable %pBuf StorageBuffer
         %pc = OpVariable %pPC PushConstant
        %gid = OpVariable %pIn Input
        %nwg = OpVariable %pIn Input
         %c0 = OpConstant %u32 0
         %c1 = OpConstant %u32 1
       %c128 = OpConstant %u32 128
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %g = OpLoad %v3u %gid
         %i0 = OpCompositeExtract %u32 %g 0
         %nw = OpLoad %v3u %nwg
        %nwx = OpCompositeExtract %u32 %nw 0
     %stride = OpIMul %u32 %nwx %c128
         %pa = OpAccessChain %pPCelem %pc %c0
          %a = OpLoad %ELEM %pa
         %pn = OpAccessChain %pPCu %pc %c1
          %n = OpLoad %u32 %pn
               OpBranch %header
     %header = OpLabel
          %i = OpPhi %u32 %i0 %entry %inext %cont
       %cond = OpULessThan %bool %i %n
               OpLoopMerge %merge %cont None
               OpBranchConditional %cond %body %merge
       %body = OpLabel
         %px = OpAccessChain %pElem %src %c0 %i
         %xv = OpLoad %ELEM %px
         %py = OpAccessChain %pElem %dst %c0 %i
BODY
               OpBranch %cont
       %cont = OpLabel
      %inext = OpIAdd %u32 %i %stride
               OpBranch %header
      %merge = OpLabel
               OpReturn
               OpFunctionEnd
"""

# dst[i] = a * src[i] + dst[i]   (push constants: f32 a, u32 n)
SAXPY = _TEMPLATE.replace("%ELEM", "%f32").replace(
    "BODY",
    """\
         %yv = OpLoad %f32 %py
         %ax = OpFMul %f32 %a %xv
          %r = OpFAdd %f32 %ax %yv
               OpStore %py %r""",
)

# dst[i] = src[i] + a   (u32 elements; push constants: u32 a, u32 n); a = 0 is a copy
COPY_ADD_U32 = _TEMPLATE.replace("%ELEM", "%u32").replace(
    "BODY",
    """\
          %r = OpIAdd %u32 %xv %a
               OpStore %py %r""",
)


def spirv_tools_missing() -> str | None:
    """Why the shaders cannot be assembled here, or None."""
    missing = [tool for tool in ("spirv-as", "spirv-val") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found (install spirv-tools)"
    return None


def assemble(text: str, target_env: str = "vulkan1.1") -> bytes:
    """SPIR-V assembly -> validated binary."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "shader.spvasm"), os.path.join(tmp, "shader.spv")
        with open(src, "w") as f:
            f.write(text)
        for cmd in (
            ["spirv-as", "--target-env", target_env, src, "-o", out],
            ["spirv-val", "--target-env", target_env, out],
        ):
            proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(
                    f"{' '.join(cmd[:1])} failed:\n{proc.stderr}{proc.stdout}"
                )
        with open(out, "rb") as f:
            return f.read()
