#!/bin/bash
# session 8: host-side launch cases paired with session 7's main (e9962ea, .base) on this
# machine, the memory-bound cases against Triton over 3 rounds, compile latency
mkdir -p /tmp/pkgbase && ln -sfn $PWD/.base /tmp/pkgbase/taichi_xdsl
for r in 1 2; do
  for v in base new; do
    if [ $v = new ]; then pp=/tmp/pkg; else pp=/tmp/pkgbase; fi
    echo "== $v round $r"
    PYTHONPATH=$pp:/tmp/site python3 -m bench --archs vulkan --frameworks xdsl --cases julia,mpm88,launch,cg,reduce,stencil \
      --rounds 1 --samples 5 --timeout 90 --no-warm --import-rounds 0 --markdown \
      --json $OUT/h100-s8-vkpair-$v-$r.json 2>&1 | grep "(vulkan)"
  done
done
python3 -m bench --archs vulkan --frameworks xdsl,triton --cases stencil,reduce,saxpy,copy,julia \
  --rounds 3 --samples 5 --timeout 90 --no-warm --import-rounds 0 --triton-python python3 \
  --markdown --json $OUT/h100-s8-vulkan-close-3rounds.json > $OUT/h100-s8-vulkan-close-3rounds.log 2>&1
tail -10 $OUT/h100-s8-vulkan-close-3rounds.log
echo "== compile latency (ours)"
timeout 170 python3 bench/compile_latency.py --archs cpu,vulkan --rounds 2 --markdown --json $OUT/h100-s8-compile-latency.json 2>&1 | tee $OUT/h100-s8-compile-latency.txt | tail -30
