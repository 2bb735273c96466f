#!/bin/bash
# docs/gpu-speed/stencil.md: main's package and this branch's, alternating, on the GPU host
# (run from /work/main's copy after bench/gpu_host.sh; .hs8/s8-stencil holds this branch).
# usage: bash stencil_probe.sh ROUND   (1: variants; 2: the chosen defaults)
H=.hs8/s8-stencil; P=$H/bench/stencil_probe.py
mkdir -p /tmp/hs && ln -sfn $PWD/$H /tmp/hs/taichi_xdsl
run() { local v=$1; shift; if [ $v = main ]; then pp=/tmp/pkg; else pp=/tmp/hs; fi
        V=$v PYTHONPATH=$pp:/tmp/site timeout 60 python3 $P "$@" 2>&1 | tail -1; }
if [ "$1" = 1 ]; then
  for c in stencil ndstencil saxpy copy; do run main $c; run mine $c; done
  for o in align=0 ro_root=1 "align=0 unroll=2" "align=0 layout=block" "align=0 unroll=2 layout=block" \
           "ro_root=1 align=0 unroll=2" unroll=1; do run mine stencil $o; done
  run mine ndstencil align=0; run mine ndstencil layout=block; run mine ndstencil align=0 layout=block
  for c in saxpy copy; do run mine $c layout=block; run mine $c unroll=2 layout=block; run mine $c unroll=8 layout=block; done
  run main stencil; run mine stencil; run main copy; run mine copy
elif [ "$1" = 2 ]; then
  run main stencil; run mine stencil
  for o in "layout=block usel=1" "layout=block usel=1 unroll=2" "layout=block usel=1 unroll=8" usel=1 \
           "align=0 layout=block" "align=0 layout=block unroll=8"; do run mine stencil $o; done
  run main ndstencil; run mine ndstencil; run mine ndstencil layout=block usel=1; run mine ndstencil align=0 layout=block
  for c in saxpy copy; do run main $c; run mine $c layout=block; run mine $c layout=block unroll=8; run mine $c unroll=8; done
  run main stencil; run mine stencil layout=block usel=1
  PYTHONPATH=/tmp/pkg:/tmp/site timeout 100 python3 -m bench --archs vulkan --frameworks xdsl,triton \
    --cases stencil,saxpy,copy --rounds 1 --samples 5 --no-warm --import-rounds 0 --triton-python python3 2>&1 | tail -12
else
  for c in stencil ndstencil saxpy copy reduce; do run main $c; run mine $c; done
  for c in stencil saxpy copy reduce; do run mine $c unroll=8; done; run main stencil; run mine stencil
  for v in main mine; do if [ $v = main ]; then pp=/tmp/pkg; d=$PWD; else pp=/tmp/hs; d=/tmp/hs/taichi_xdsl; fi
    echo "== bench $v"; (cd $d && PYTHONPATH=$pp:/tmp/site timeout 90 python3 -m bench --archs vulkan \
      --frameworks xdsl,triton --cases stencil,saxpy,copy,reduce,mpm88 --rounds 1 --samples 5 --no-warm \
      --import-rounds 0 --triton-python python3 2>&1 | tail -9); done
fi
