#!/usr/bin/env bash
# The README's test command: install dependencies, build, run every test (CTest; tests labelled
# `gpu` skip themselves with a message when no GPU is present). CI runs it with no argument.
#
#   tools/test.sh            everything (what CI runs)
#   tools/test.sh --quick    everything but the tests labelled `slow` (about 5 s or more each)
#   tools/test.sh -L unit    any ctest arguments: a label (unit, cli, slow, import, ...), -R NAME, ...
set -euo pipefail
cd "$(dirname "$0")/.."
ctest_args=("$@")
if [ "${1:-}" = "--quick" ]; then ctest_args=(-LE slow "${@:2}"); fi
if [ "${1:-}" = "--help" ]; then sed -n '2,8p' "$0"; exit 0; fi
./tools/build.sh
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs" "${ctest_args[@]}"
