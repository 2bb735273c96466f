#!/bin/bash
mkdir -p /tmp/pkgbase && ln -sfn $PWD/.base /tmp/pkgbase/taichi_xdsl
K=.probe/s8/mpmknob.py
for r in 1 2; do
  echo "== round $r"
  echo -n "base   "; PYTHONPATH=/tmp/pkgbase:/tmp/site python3 $K
  echo -n "new    "; python3 $K
  echo -n "new    "; python3 $K layout=stride
  echo -n "new    "; python3 $K sel=0
  echo -n "new    "; python3 $K layout=stride sel=0
  echo -n "new    "; python3 $K drop=ti-align-rows
  echo -n "new    "; python3 $K drop=ti-fuse-serial-reduction
done
