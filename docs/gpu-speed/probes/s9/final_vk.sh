#!/bin/bash
# session 9: ours and Triton on every GPU case (H100): one round of all (warm cache and
# import rounds too), three rounds of the cases Triton has, per-dispatch GPU time
python3 -m bench --archs vulkan --frameworks xdsl,triton --rounds 1 --samples 5 --timeout 90 \
  --warm-rounds 1 --import-rounds 1 --rivals-python python3 --triton-python python3 \
  --markdown --json $OUT/h100-s9-vulkan-ours-triton.json > $OUT/h100-s9-vulkan-ours-triton.log 2>&1
tail -45 $OUT/h100-s9-vulkan-ours-triton.log | grep -v "^$"
python3 -m bench --archs vulkan --frameworks xdsl,triton --cases saxpy,reduce,julia,nbody,stencil,copy \
  --rounds 3 --samples 5 --timeout 90 --no-warm --import-rounds 0 --triton-python python3 \
  --markdown --json $OUT/h100-s9-vulkan-triton-3rounds.json > $OUT/h100-s9-vulkan-triton-3rounds.log 2>&1
tail -12 $OUT/h100-s9-vulkan-triton-3rounds.log
timeout 120 python3 bench/vulkan_profile.py --calls 100 --no-variants 2>&1 | tee $OUT/h100-s9-vulkan-profile.txt
