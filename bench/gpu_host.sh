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
# Without .gl or the NVIDIA driver (a rehearsal on another machine) those steps are
# skipped; GPU_HOST_DIR (default /tmp) is where the wheels and the package link go.
set -e
export GPU_HOST_START=${GPU_HOST_START:-$(date +%s)}  # a command's time limit counts from here
wheels=$1; shift
dir=${GPU_HOST_DIR:-/tmp}
if compgen -G ".gl/*.deb" > /dev/null; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
nvidia=/usr/local/nvidia/share
if [ -e $nvidia/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=$nvidia/vulkan/icd.d/nvidia_icd.json
    export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia/glvnd/egl_vendor.d/10_nvidia.json
fi
mkdir -p "$dir/site" "$dir/pkg"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target "$dir/site" "$wheels"/*.whl
for t in "$wheels"/*.tar.xz; do [ -e "$t" ] && tar -xJf "$t" -C "$dir/site"; done
ln -sfn "$PWD" "$dir/pkg/taichi_xdsl"  # the repository root is the package
export PYTHONPATH=$dir/pkg:$dir/site PYTHONUNBUFFERED=1
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
"$@"
