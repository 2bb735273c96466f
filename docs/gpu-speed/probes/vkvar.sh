#!/bin/bash
# session 8: stencil / reduce variants on the GPU host
P=.probe/s8/vkvar.py
for c in stencil stencil_aligned stencil_flat stencil_copy; do python3 $P $c; done
for o in unroll=1 unroll=2 unroll=8 fill=1024 fill=2048 fill=8192 fill=16384 fill=32768 local=256 local=512 local=64; do python3 $P stencil $o; done
for o in unroll=1 unroll=2 fill=8192 local=256 local=512; do python3 $P stencil_aligned $o; done
for c in reduce reduce_noinit reduce_const; do python3 $P $c; done
for o in unroll=1 unroll=2 unroll=8 combine=512 combine=1024 combine=4096 combine=8192 local=256 local=512 local=1024; do python3 $P reduce $o; done
