#!/bin/bash
# Prepare a bare GPU host (no network, Python 3.12 with numpy/torch/triton) for bench/,
# then run the command given, e.g. from the repository root:
#
#   bash bench/gpu_host.sh .whl  python3 -m bench --archs cpu,vulkan --frameworks xdsl,numba,triton ...
#   bash bench/gpu_host.sh .twhl python3 -m bench --archs cpu,vulkan --frameworks taichi,taichi-cuda ...
#
# WHEELS is a folder of carried wheels (and optionally *.tar.xz of unpacked packages,
# smaller than their wheels: a call may carry 64 MiB); .gl holds the Debian packages of
# the Vulkan loader and libglvnd, which NVIDIA's Vulkan driver needs (see README, bench).
set -e
wheels=$1; shift
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
mkdir -p /tmp/site /tmp/pkg
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$wheels"/*.whl
for t in "$wheels"/*.tar.xz; do [ -e "$t" ] && tar -xJf "$t" -C /tmp/site; done
ln -sfn "$PWD" /tmp/pkg/taichi_xdsl  # the repository root is the package
export PYTHONPATH=/tmp/pkg:/tmp/site PYTHONUNBUFFERED=1
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$@"
