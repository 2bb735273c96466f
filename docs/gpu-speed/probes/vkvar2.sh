#!/bin/bash
# session 8 probe 2: stencil load paths and coarsening, reduce's init as a fill
P=.probe/s8/vkvar2.py; Q=.probe/s8/vkvar.py
python3 $Q stencil; python3 $Q stencil_aligned; python3 $Q stencil_copy
python3 $P nd; RO_BINDINGS=6 python3 $P nd; RO_BINDINGS=6 python3 $P nd local=256
for c in c2 c4 c8; do python3 $P $c; python3 $P $c local=64; done
python3 $P c4 local=256; python3 $P c4 unroll=1; python3 $P c4 unroll=2
python3 $Q reduce; python3 $Q reduce_noinit; python3 $P fillinit
python3 $Q reduce local=256; python3 $Q reduce_noinit local=256; python3 $P fillinit local=256
