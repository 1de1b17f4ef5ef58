#!/usr/bin/env bash
# The README's test command: install dependencies, build, run every test (CTest; tests labelled
# `gpu` skip themselves with a message when no GPU is present).
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/build.sh
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs"
