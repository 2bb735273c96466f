#!/bin/bash
# session 8: Taichi 1.7.4 on the same host kind: CPU poisson (3 rounds), GPU cases (CUDA and Vulkan)
python3 -m bench --archs cpu --frameworks taichi --cases poisson --rounds 3 --samples 5 --timeout 120 \
  --no-warm --import-rounds 0 --rivals-python python3 --markdown --json $OUT/h100-s8-taichi-poisson.json 2>&1 | tail -8
python3 -m bench --archs vulkan --frameworks taichi,taichi-cuda --cases saxpy,reduce,julia,nbody,stencil,mpm88,launch,copy \
  --rounds 1 --samples 5 --timeout 90 --no-warm --import-rounds 0 --rivals-python python3 \
  --markdown --json $OUT/h100-s8-taichi-gpu.json > $OUT/h100-s8-taichi-gpu.log 2>&1
tail -20 $OUT/h100-s8-taichi-gpu.log
