#!/usr/bin/env bash
# The long differential run of issue 13 (utils/difftest.py), sized for a many-core host
# with a Vulkan driver and one ~9-minute slot. On the bare GPU host, from the root of a
# taichi-xdsl checkout, with the wheels bench/gpu_host.sh installs (.whl: xdsl 0.74.0,
# llvmlite 0.50.0, vulkan 1.3.275.1, cffi 2.1.1 and their pure-Python dependencies):
#
#     OUT=$OUT bash bench/gpu_host.sh .whl bash utils/difftest_farm.sh 0:10000 480
#
# (anywhere taichi_xdsl imports, `OUT=dir bash utils/difftest_farm.sh` is enough).
# SEEDS ($1, default 0:10000) run on cpu and on vulkan with one worker process per core,
# each its own ti.init; no program starts after TIME_LIMIT_S ($2, default 480) seconds,
# so the programs in flight finish and the summary is written inside 9 minutes. Output:
# $OUT/difftest.json (programs run per arch: ok / mismatch / error / crash / timeout, skips
# with reasons, every failure with its seed, what the programs covered, the workers' CPU
# seconds; rewritten every 20 s, so a killed run still leaves one) and $OUT/difftest.log.
# Continue an unfinished run in another slot by passing its JSON:
#     RESUME=old/difftest.json OUT=new bash ... utils/difftest_farm.sh 0:10000 480
set -euo pipefail

SEEDS=${1:-0:10000}
TIME_LIMIT=${2:-480}
OUT=${OUT:-/tmp/difftest-farm}
PYTHON=${PYTHON:-python3}
mkdir -p "$OUT"

if ! "$PYTHON" -c "import taichi_xdsl" 2>/dev/null; then
    SITE=$(mktemp -d)
    ln -s "$PWD" "$SITE/taichi_xdsl"  # the package is this checkout's root
    export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
fi

{
    echo "host: $(nproc) cores; $("$PYTHON" --version 2>&1)"
    "$PYTHON" -c "
from taichi_xdsl.targets.vulkan.device import list_devices
for d in list_devices():
    print('vulkan device:', d.summary())"
} 2>&1 | tee "$OUT/difftest.log"

"$PYTHON" -m taichi_xdsl.utils.difftest --seeds "$SEEDS" --archs cpu,vulkan \
    --jobs "$(nproc)" --timeout 120 --time-limit "$TIME_LIMIT" \
    --json "$OUT/difftest.json" ${RESUME:+--resume "$RESUME"} 2>&1 | tee -a "$OUT/difftest.log"
