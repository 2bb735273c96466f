#!/bin/bash
# session 9: Taichi 1.7.4 on the H100 host: GPU cases (Vulkan and CUDA), then the CPU cases
python3 -m bench --archs vulkan --frameworks taichi,taichi-cuda --cases saxpy,reduce,julia,nbody,stencil,mpm88,launch,copy \
  --rounds 1 --samples 5 --timeout 90 --no-warm --import-rounds 0 --rivals-python python3 \
  --markdown --json $OUT/h100-s9-taichi-gpu.json > $OUT/h100-s9-taichi-gpu.log 2>&1
tail -14 $OUT/h100-s9-taichi-gpu.log
python3 -m bench --archs cpu --frameworks taichi --rounds 1 --samples 5 --timeout 90 --no-warm --import-rounds 0 \
  --rivals-python python3 --markdown --json $OUT/h100-s9-taichi-cpu.json > $OUT/h100-s9-taichi-cpu.log 2>&1
tail -18 $OUT/h100-s9-taichi-cpu.log
