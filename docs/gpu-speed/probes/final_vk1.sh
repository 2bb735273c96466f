#!/bin/bash
# session 8: ours and Triton on every GPU case (H100), per-dispatch GPU time
python3 -m bench --archs vulkan --frameworks xdsl,triton --rounds 1 --samples 5 --timeout 90 \
  --warm-rounds 1 --import-rounds 1 --rivals-python python3 --triton-python python3 \
  --markdown --json $OUT/h100-s8-vulkan-ours-triton.json > $OUT/h100-s8-vulkan-ours-triton.log 2>&1
tail -30 $OUT/h100-s8-vulkan-ours-triton.log
timeout 120 python3 bench/vulkan_profile.py --calls 100 --no-variants 2>&1 | tee $OUT/h100-s8-vulkan-profile.txt
