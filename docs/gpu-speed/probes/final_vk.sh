#!/bin/bash
# session 8: ours and Triton on every GPU case (H100), per-dispatch GPU time, compile latency
python3 -m bench --archs vulkan --frameworks xdsl,triton --rounds 1 --samples 5 --timeout 90 \
  --warm-rounds 1 --import-rounds 1 --rivals-python python3 --triton-python python3 \
  --markdown --json $OUT/h100-s8-vulkan-ours-triton.json > $OUT/h100-s8-vulkan-ours-triton.log 2>&1
tail -40 $OUT/h100-s8-vulkan-ours-triton.log
python3 -m bench --archs vulkan --frameworks xdsl,triton --cases saxpy,reduce,stencil,copy \
  --rounds 3 --samples 5 --timeout 90 --no-warm --import-rounds 0 --triton-python python3 \
  --markdown --json $OUT/h100-s8-vulkan-close-3rounds.json > $OUT/h100-s8-vulkan-close-3rounds.log 2>&1
tail -12 $OUT/h100-s8-vulkan-close-3rounds.log
timeout 120 python3 bench/vulkan_profile.py --calls 100 --no-variants 2>&1 | tee $OUT/h100-s8-vulkan-profile.txt
echo "== compile latency (ours)"
timeout 300 python3 bench/compile_latency.py --archs cpu,vulkan --rounds 3 --markdown --json $OUT/h100-s8-compile-latency.json 2>&1 | tee $OUT/h100-s8-compile-latency.txt | tail -30
