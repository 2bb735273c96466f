#!/usr/bin/env bash
# The long differential run of issue 13 (utils/difftest.py), sized for a many-core host
# with a Vulkan driver and one ~9-minute slot. From the root of a taichi-xdsl checkout
# (it need not be installed):
#
#     OUT=/some/folder bash utils/difftest_farm.sh [SEEDS] [TIME_LIMIT_S]
#
# SEEDS (default 0:10000) run on cpu and on vulkan with one worker process per core
# (`--jobs $(nproc)`, each its own ti.init); no program starts after TIME_LIMIT_S
# seconds (default 480: the programs in flight then finish, and the summary is written
# well inside 9 minutes). Output: $OUT/difftest.json (programs run per arch, ok /
# mismatch / error / crash / timeout, skips with reasons, every failure with its seed,
# what the programs covered; rewritten every 20 s, so a killed run still leaves one)
# and $OUT/difftest.log. To continue an unfinished run in another slot, pass its JSON:
#     RESUME=old/difftest.json OUT=new bash utils/difftest_farm.sh
#
# Needs: Python >= 3.11 with numpy, and xdsl 0.74.0, llvmlite 0.50.0, vulkan 1.3.275.1,
# cffi (with pycparser, immutabledict, ordered-set, typing_extensions). Those not
# importable are taken from the wheels in $WHEELS (default ./wheels), unpacked into a
# temporary folder (no pip, no network). To fetch them on a machine with an index:
#     pip download --only-binary=:all: --python-version 3.12 --implementation cp \
#         --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -d wheels \
#         xdsl==0.74.0 llvmlite==0.50.0 vulkan==1.3.275.1 cffi==2.1.1
set -euo pipefail

SEEDS=${1:-0:10000}
TIME_LIMIT=${2:-480}
OUT=${OUT:-/tmp/difftest-farm}
WHEELS=${WHEELS:-wheels}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"

SITE=$(mktemp -d)
trap 'rm -rf "$SITE"' EXIT
ln -s "$PWD" "$SITE/taichi_xdsl"  # the package is this checkout's root
if ! "$PYTHON" -c "import xdsl, llvmlite, vulkan, cffi" 2>/dev/null; then
    for wheel in "$WHEELS"/*.whl; do
        "$PYTHON" -m zipfile -e "$wheel" "$SITE"
    done
fi
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"

{
    echo "host: $(nproc) cores; $("$PYTHON" --version 2>&1)"
    "$PYTHON" -c "import xdsl, llvmlite, numpy; print('xdsl', xdsl.__version__ if hasattr(xdsl, '__version__') else '?', 'llvmlite', llvmlite.__version__, 'numpy', numpy.__version__)"
    "$PYTHON" -c "
from taichi_xdsl.targets.vulkan.device import list_devices
for d in list_devices():
    print('vulkan device:', d.summary())"
} 2>&1 | tee "$OUT/difftest.log"

"$PYTHON" -m taichi_xdsl.utils.difftest --seeds "$SEEDS" --archs cpu,vulkan \
    --jobs "$(nproc)" --timeout 120 --time-limit "$TIME_LIMIT" \
    --json "$OUT/difftest.json" ${RESUME:+--resume "$RESUME"} 2>&1 | tee -a "$OUT/difftest.log"
