#!/usr/bin/env bash
# The mutation check (docs/mutation.md) of every mutant of lowering/, lit and pytest stages,
# sized for a many-core host with a Vulkan driver and ~9-minute commands. On the bare GPU
# host, from the root of a taichi-xdsl checkout, carrying .whl (the wheels and
# llvmlite.tar.xz that bench/gpu_host.sh installs, and spirv-tools_*.deb), .gl (the Vulkan
# loader) and .mutation (the results of the calls before, if any):
#
#     OUT=$OUT bash bench/gpu_host.sh .whl bash utils/mutation_farm.sh 1/1 570
#
# (anywhere taichi_xdsl, xdsl, filecheck and pytest import, `bash utils/mutation_farm.sh`
# is enough). SHARD ($1, K/N, default 1/1) is the part of the mutants this host runs;
# TIME_LIMIT ($2, seconds, default 570) is when the call must have ended, counted from
# the start of bench/gpu_host.sh (GPU_HOST_START; else this script's): the run starts no
# mutant in its last minute and stops those in flight at its end.
# Output in $OUT: mutation-K-of-N.jsonl (a line per mutant, appended as each ends),
# mutation-K-of-N.log, baseline-K-of-N.json (the baseline's coverage). A second call
# continues where the first stopped: copy the files that came back into .mutation/
# (RESUME, default .mutation) and call again with the same SHARD; it reads them, skips the
# baseline when the checkout is the same, and writes the grown files into $OUT.
# When every shard is done:  python -m taichi_xdsl.utils.mutation --report .mutation/*.jsonl
#
# Other settings: JOBS (mutants at once, default cores - 2), FILES (default every file of
# lowering/), WHEELS (for spirv-tools_*.deb, default .whl), ALLOW_NO_VULKAN=1 (run
# without a Vulkan device: its tests are then skipped in the baseline and every mutant).
set -euo pipefail

SHARD=${1:-1/1}
TIME_LIMIT=${2:-570}
OUT=${OUT:-.mutation}
RESUME=${RESUME:-.mutation}
WHEELS=${WHEELS:-.whl}
JOBS=${JOBS:-$(( $(nproc) > 3 ? $(nproc) - 2 : 1 ))}
PYTHON=${PYTHON:-python3}
name=mutation-${SHARD/\//-of-}
mkdir -p "$OUT"

if ! "$PYTHON" -c "import taichi_xdsl" 2>/dev/null; then
    site=$(mktemp -d)
    ln -s "$PWD" "$site/taichi_xdsl"  # the package is this checkout's root
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
# spirv-val for the `REQUIRES: spirv-tools` lit tests (without it they pass as skipped)
for deb in "$WHEELS"/spirv-tools_*.deb; do
    if [ -e "$deb" ] && ! command -v spirv-val > /dev/null; then
        dpkg -x "$deb" "${TMPDIR:-/tmp}/spirv-tools"
        export PATH="${TMPDIR:-/tmp}/spirv-tools/usr/bin:$PATH"
    fi
done
# every pytest process of the 30 runs parallel loops on a few threads, not on every core
export TI_CPU_MAX_NUM_THREADS=${TI_CPU_MAX_NUM_THREADS:-4}

for file in "$name.jsonl" "baseline-$name.json"; do
    if [ -e "$RESUME/$file" ] && ! [ "$RESUME/$file" -ef "$OUT/$file" ]; then
        cp "$RESUME/$file" "$OUT/$file"
    fi
done

{
    echo "host: $(nproc) cores, $JOBS jobs, shard $SHARD; $("$PYTHON" --version 2>&1);" \
        "$(command -v spirv-val > /dev/null && spirv-val --version | head -1 || echo 'no spirv-val')"
    "$PYTHON" -c "
import pytest, xdsl, numpy
from taichi_xdsl.targets.vulkan import vulkan_available
print('pytest', pytest.__version__, 'numpy', numpy.__version__, '; vulkan:', vulkan_available())"
    if [ -e "$OUT/$name.jsonl" ]; then
        echo "resuming: $(wc -l < "$OUT/$name.jsonl") mutants done before"
    fi
} 2>&1 | tee -a "$OUT/$name.log"
if [ -z "${ALLOW_NO_VULKAN:-}" ] && ! "$PYTHON" -c "
import sys
from taichi_xdsl.targets.vulkan import vulkan_available
sys.exit(0 if vulkan_available()[0] else 1)"; then
    echo "no Vulkan device: its tests would be skipped for every mutant (ALLOW_NO_VULKAN=1 runs anyway)" \
        | tee -a "$OUT/$name.log"
    exit 1
fi

start=${GPU_HOST_START:-$(( $(date +%s) - SECONDS ))}
left=$(( start + TIME_LIMIT - $(date +%s) - 15 ))  # 15 s for the workers' end and the report
# A mutant that makes a kernel spin is a timeout after 120 CPU seconds of its pytest
# process (the slowest mutant that passed took 28), not after the default 600: one
# such mutant in flight at the end of every call would never be done.
# shellcheck disable=SC2086  # FILES is a list of paths
"$PYTHON" -m taichi_xdsl.utils.mutation --limit 0 --jobs "$JOBS" --shard "$SHARD" \
    --test-timeout 30 --mutant-timeout 120 ${FILES:+--files $FILES} \
    --json "$OUT/$name.jsonl" --baseline "$OUT/baseline-$name.json" --stop-after "$left" \
    >> "$OUT/$name.log" 2>&1 || echo "the run failed: see $name.log"
# the end of the log: the baseline's outcome, the table, not every mutant's line
grep -v -e '^   ' -e '^SURVIVED' "$OUT/$name.log" | tail -60 || true
echo "$(cat "$OUT/$name.jsonl" 2>/dev/null | wc -l) mutants in $name.jsonl; the survivors:" \
    "python -m taichi_xdsl.utils.mutation --report $name.jsonl"
