#!/usr/bin/env bash
# Installs the Debian packages scalecast needs (quiet when present) and builds it (Release)
# into build/. Prints the path of the scalecast binary's folder on success.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
launcher=()
# ccache, when installed, makes rebuilds after a branch switch cheap; the build never needs it.
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
cmake --build build -j"$jobs" "$@"
