#!/bin/bash
# session 9: the bench's stencil with unroll-loads-first on and off (sitecustomize)
B="python3 -m bench --archs vulkan --frameworks xdsl --cases saxpy,stencil --rounds 2 --samples 5 --timeout 90 --no-warm --import-rounds 0 --markdown"
for r in 1 2; do
  echo "== on";  $B 2>&1 | grep "(vulkan)"
  echo "== off"; PYTHONPATH=$PWD/.probe/s9/nolf:$PYTHONPATH $B 2>&1 | grep "(vulkan)"
done
python3 -m bench --archs vulkan --frameworks xdsl --cases stencil --rounds 1 --samples 5 --timeout 90 --no-warm --import-rounds 0 --json /tmp/st.json > /dev/null 2>&1
python3 -c "
import json; d=json.load(open('/tmp/st.json'))
print(json.dumps(d)[:3000])"
