#!/bin/bash
# session 9 probe: stencil, loads before stores (manual layouts) against the bench kernel
P=.probe/s9/stvar.py
for r in 1 2; do
python3 $P base; python3 $P base unroll=8
python3 $P manA4 unroll=1; python3 $P manB4 unroll=1
python3 $P manA8 unroll=1; python3 $P manB8 unroll=1
python3 $P manB4 unroll=1 local=256; python3 $P manB2 unroll=1
python3 $P manB4 unroll=2
done
