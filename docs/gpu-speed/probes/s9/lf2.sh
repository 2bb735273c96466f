#!/bin/bash
# session 9: unroll-loads-first off / guarded loads / speculated loads: stencil (GPU
# timestamps of the task) and mpm88 (wall a step, GPU timestamps a task)
for r in 1 2 3; do
  for a in "lf=0" "lf=1 spec=0" "lf=1"; do python3 .probe/s9/stvar.py base $a; done
  for a in "lf=0" "lf=1 spec=0" "lf=1"; do python3 .probe/s9/mpmknob.py $a; done
done
