#!/bin/bash
# session 9: unroll-loads-first on and off, stencil (GPU timestamps) and mpm88 (wall a step)
for r in 1 2 3; do
  python3 .probe/s9/stvar.py base lf=0; python3 .probe/s9/stvar.py base lf=1
  python3 .probe/s9/stvar.py base lf=1 unroll=8
  python3 .probe/s9/mpmknob.py lf=0; python3 .probe/s9/mpmknob.py lf=1
done
