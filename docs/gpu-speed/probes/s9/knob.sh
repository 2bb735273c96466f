#!/bin/bash
# session 9: reduction / copy knobs (unroll, combine groups and block) and the stencil's unroll
K=.probe/s9/knobcase.py
for r in 1 2; do
  for a in "" "unroll=8" "unroll=16" "groups=2048" "groups=512" "unroll=8 groups=512" "unroll=16 groups=256" "local=128 groups=2048"; do python3 $K reduce $a; done
  for a in "" "unroll=8"; do python3 $K saxpy $a; python3 $K copy $a; done
  python3 .probe/s9/stvar.py base unroll=2; python3 .probe/s9/stvar.py base
done
