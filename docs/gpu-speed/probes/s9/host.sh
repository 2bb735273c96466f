#!/bin/bash
for c in julia reduce stencil saxpy launch; do python3 .probe/s9/host.py $c; done
python3 .probe/s9/host.py julia --profile 2>&1 | grep -v "^$" | head -30
python3 .probe/s9/host.py reduce --profile 2>&1 | grep -v "^$" | head -30
