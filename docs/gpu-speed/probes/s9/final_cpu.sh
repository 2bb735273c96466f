#!/bin/bash
# session 9: ours and Numba on every CPU case (H100 host, 16 cores), then three rounds of the close ones
python3 -m bench --archs cpu --frameworks xdsl,numba --rounds 1 --samples 5 --timeout 90 \
  --no-warm --import-rounds 0 --rivals-python python3 \
  --markdown --json $OUT/h100-s9-cpu-ours-numba.json > $OUT/h100-s9-cpu-ours-numba.log 2>&1
grep "(cpu) |" $OUT/h100-s9-cpu-ours-numba.log
python3 -m bench --archs cpu --frameworks xdsl,numba --cases saxpy,copy,stencil,reduce,poisson --rounds 3 --samples 5 --timeout 90 \
  --no-warm --import-rounds 0 --rivals-python python3 \
  --markdown --json $OUT/h100-s9-cpu-close-3rounds.json > $OUT/h100-s9-cpu-close-3rounds.log 2>&1
grep "(cpu) |" $OUT/h100-s9-cpu-close-3rounds.log
