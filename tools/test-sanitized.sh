#!/usr/bin/env bash
# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer (GCC, with
# float-cast-overflow), in build-sanitize/. jemalloc is left out of that build (the sanitizer
# brings its own allocator). The tests labelled `slow` are excluded by default (they are the
# seed-study sweeps and a placement search, about 10x slower under the sanitizers); pass
# --all to run them too, or any ctest arguments (-R NAME, -L unit).
#
#   tools/test-sanitized.sh            every test but the slow ones
#   tools/test-sanitized.sh --all      every test
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/install-deps.sh
ctest_args=(-LE slow)
if [ "${1:-}" = "--all" ]; then ctest_args=(); shift; fi
ctest_args+=("$@")
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# -O1 -g1 (line tables only): what the sanitizers' reports need (file:line in every frame), and
# about half the compile time of -O2 -g on the 2-core machine.
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCALECAST_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DSCALECAST_BUILD_BENCHMARKS=OFF "${launcher[@]}" >/dev/null
cmake --build build-sanitize -j"$(nproc 2>/dev/null || echo 2)"
# detect_leaks: SimGrid keeps its engine until exit by design; leaks are not what this job checks.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_odr_violation=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc 2>/dev/null || echo 2)" "${ctest_args[@]}"
