#!/bin/bash
# session 8: ours' poisson step on the H100 host with the cholmod extra (cvxopt). The step
# (analyze + factorize + solve) runs on the host CPU whatever the arch; arch vulkan here
# because llvmlite does not fit the carry beside cvxopt (b and x cross to the device: ours pays that).
python3 -c "import cvxopt; print('cvxopt', cvxopt.__version__)"
python3 -m bench --archs vulkan --frameworks xdsl --cases poisson --rounds 3 --samples 5 --timeout 120 \
  --no-warm --import-rounds 0 --markdown --json $OUT/h100-s8-poisson-ours.json 2>&1 | tail -8
