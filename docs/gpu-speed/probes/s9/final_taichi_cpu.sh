#!/bin/bash
# session 9: Taichi 1.7.4's CPU cases on the machine that just ran final_cpu.sh (warm)
python3 -m bench --archs cpu --frameworks taichi --rounds 1 --samples 5 --timeout 90 --no-warm --import-rounds 0 \
  --rivals-python python3 --markdown --json $OUT/h100-s9-taichi-cpu-paired.json > $OUT/h100-s9-taichi-cpu-paired.log 2>&1
grep "(cpu) |" $OUT/h100-s9-taichi-cpu-paired.log
python3 -m bench --archs cpu --frameworks taichi --cases saxpy,copy,stencil,reduce,poisson --rounds 3 --samples 5 --timeout 90 \
  --no-warm --import-rounds 0 --rivals-python python3 --markdown --json $OUT/h100-s9-taichi-cpu-close-3rounds.json > /dev/null 2>&1
python3 -c "
import json,statistics; d=json.load(open('$OUT/h100-s9-taichi-cpu-close-3rounds.json'))
for k,v in d['runs'].items(): print(k, [round(statistics.median(r['steady_s'])*1e6,1) for r in v if 'steady_s' in r])"
