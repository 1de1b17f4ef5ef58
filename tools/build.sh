#!/usr/bin/env bash
# Installs the Debian packages scalecast needs (quiet when present) and builds it (Release)
# into build/. Prints the path of the scalecast binary's folder on success.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs" "$@"
