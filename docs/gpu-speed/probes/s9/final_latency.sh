#!/bin/bash
# session 9: compile latency (ours, cpu and Vulkan; Taichi cannot share this carry) and the
# start-up phases of a cold program
timeout 300 python3 bench/compile_latency.py --archs cpu,vulkan --rounds 3 --markdown --json $OUT/h100-s9-compile-latency.json 2>&1 | tee $OUT/h100-s9-compile-latency.txt | tail -30
for a in cpu vulkan; do timeout 60 python3 bench/startup_probe.py --arch $a 2>&1 | tail -15; done | tee $OUT/h100-s9-startup.txt
