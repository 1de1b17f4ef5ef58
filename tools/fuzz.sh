#!/usr/bin/env bash
# Fuzzes the readers of every kind of user input (tests/fuzz/fuzz_targets.h) with libFuzzer,
# under AddressSanitizer and UndefinedBehaviorSanitizer, built with clang into build-fuzz/.
# Seed corpora are the repository's own files; each target's corpus grows in
# build-fuzz/corpus/<target>/ and crashing inputs land in build-fuzz/crashes/<target>/ (copy
# them to tests/fuzz/regressions/<target>/ so that the test suite replays them).
#
#   tools/fuzz.sh                      every target, 10 minutes each
#   tools/fuzz.sh 60                   every target, 60 s each
#   tools/fuzz.sh 60 platform_yaml     one target
#   RUNS=10000000 tools/fuzz.sh        every target until 10 M executions
#
# At the end it prints, per target, the executions reached and whether anything was found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(platform_yaml workload_yaml cost_model_yaml trace_json kineto quantities)
./tools/install-deps.sh
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCALECAST_FUZZ=ON \
  -DSCALECAST_BUILD_BENCHMARKS=OFF "${launcher[@]}" >/dev/null
cmake --build build-fuzz -j"$(nproc 2>/dev/null || echo 2)" --target "${targets[@]/%/_fuzz}"

seeds() {  # the repository's files of a target's kind
  case "$1" in
    platform_yaml) ls platforms/*.yaml ;;
    workload_yaml) ls workloads/*.yaml tests/data/workloads/*.yaml | grep -v cost-model ;;
    cost_model_yaml) ls workloads/cost-model.yaml ;;
    trace_json) ls traces/*.json tests/data/timeline-small.json ;;
    kineto) ls tests/data/shared/kineto/*.json.gz ;;
    quantities) printf '%s\n' 64MB 1GiB 4096 25GB/s 100Gbps 1.5us 2ms 1MB-1GB 1KB:1GB:x4 8,16,32 8-4096 125TFLOPS ;;
  esac
}

export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
summary=()
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target crashes=build-fuzz/crashes/$target
  mkdir -p "$corpus" "$crashes"
  if [ "$target" = quantities ]; then
    i=0; while read -r seed; do printf '%s' "$seed" >"$corpus/seed-$i"; i=$((i + 1)); done < <(seeds "$target")
  else
    for seed in $(seeds "$target"); do cp "$seed" "$corpus/"; done
  fi
  limit=(-max_total_time="$seconds")
  [ -n "${RUNS:-}" ] && limit=(-runs="$RUNS")
  log=build-fuzz/$target.log
  status=0
  build-fuzz/fuzz/${target}_fuzz "$corpus" -artifact_prefix="$crashes/" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
    "${limit[@]}" >"$log" 2>&1 || status=$?
  runs=$(grep -oE 'Done [0-9]+ runs' "$log" | awk '{print $2}' | tail -1)
  [ -z "$runs" ] && runs=$(grep -oE '#[0-9]+' "$log" | tail -1 | tr -d '#')
  found=$(ls "$crashes" | wc -l)
  summary+=("$(printf '%-16s %12s executions  %s' "$target" "${runs:-?}" \
    "$([ "$status" -eq 0 ] && [ "$found" -eq 0 ] && echo 'nothing found' || echo "FOUND $found input(s) in $crashes (log $log)")")")
done
printf '%s\n' "${summary[@]}"
