#!/usr/bin/env bash
# Fuzzes the readers of every kind of user input (tests/fuzz/fuzz_targets.h) with libFuzzer,
# under AddressSanitizer and UndefinedBehaviorSanitizer, built with clang into build-fuzz/.
# Seed corpora are the repository's own files (Kineto seeds are cut from its real traces:
# tests/fuzz/seeds/); each target's corpus grows in build-fuzz/corpus/<target>/ and is reused
# by later runs. Crashing inputs land in build-fuzz/crashes/<target>/ (copy them to
# tests/fuzz/regressions/<target>/ so that the test suite replays them).
#
#   tools/fuzz.sh                      every target, 10 minutes each
#   tools/fuzz.sh 60                   every target, 60 s each
#   tools/fuzz.sh 60 platform_yaml     one target
#   RUNS=10000000 tools/fuzz.sh 14400  every target until 10 M executions or 4 hours, whichever first
#   nice -n 19 tools/fuzz.sh ...       on a shared machine
#   TIMEOUT=300 nice -n 19 tools/fuzz.sh ...
#                                      a nice'd fuzzer on a busy machine: libFuzzer's -timeout
#                                      (default 20 s) is wall time, and a fuzzer starved by
#                                      other work for that long reports an input as a timeout
#
# Targets run one after another, each on one core. Per target it prints, and appends to
# build-fuzz/fuzz-summary.txt with the date and commit, the executions reached, executions per
# second and whether anything was found; the log of each run is build-fuzz/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(platform_yaml workload_yaml cost_model_yaml trace_json kineto kineto_import quantities)
./tools/install-deps.sh
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: needs clang with libFuzzer (Debian: apt-get install clang libclang-rt-14-dev)" >&2
  exit 2
fi
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
    kineto | kineto_import) ls tests/fuzz/seeds/kineto/* ;;
    quantities) printf '%s\n' 64MB 1GiB 4096 25GB/s 100Gbps 1.5us 2ms 1MB-1GB 1KB:1GB:x4 8,16,32 8-4096 125TFLOPS ;;
  esac
}

# The longest input tried, per target: a little above its largest seed. What the readers check
# (every field, range and reference) fits in a few KB; longer inputs only parse more of the same,
# more slowly. Size caps are tested by the unit tests, with inputs of their size.
max_len() {
  case "$1" in
    platform_yaml) echo 4096 ;;
    workload_yaml | cost_model_yaml | trace_json) echo 8192 ;;
    kineto | kineto_import) echo 12288 ;;
    quantities) echo 256 ;;
  esac
}

# No allocation stacks (malloc_context_size=0): ASan keeps every distinct one for the life of the
# process, and a fuzzer finds new ones without end. With them workload_yaml grew about 1 KB per
# execution (514 -> 825 MB over 280 k executions: 10 M would pass the RSS limit); without, it
# stays flat. A finding's own stack is still printed; replaying the kept input in the sanitized
# suite (tools/test-sanitized.sh) gives the rest.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:malloc_context_size=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The kineto targets write each input to a file for the reader: in memory, not on disk.
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
summary=()
for target in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$target crashes=build-fuzz/crashes/$target
  mkdir -p "$corpus" "$crashes"
  if [ "$target" = quantities ]; then
    i=0; while read -r seed; do printf '%s' "$seed" >"$corpus/seed-$i"; i=$((i + 1)); done < <(seeds "$target")
  else
    for seed in $(seeds "$target"); do cp "$seed" "$corpus/"; done
  fi
  limits=(-max_total_time="$seconds")
  [ -n "${RUNS:-}" ] && limits+=(-runs="$RUNS")
  log=build-fuzz/$target.log
  status=0
  build-fuzz/fuzz/${target}_fuzz "$corpus" -artifact_prefix="$crashes/" -max_len="$(max_len "$target")" -timeout="${TIMEOUT:-20}" \
    -rss_limit_mb=2048 -print_final_stats=1 "${limits[@]}" >"$log" 2>&1 || status=$?
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
  [ -z "$runs" ] && runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
  # Findings: crashes, sanitizer reports, leaks, timeouts (-timeout) and memory (-rss_limit_mb).
  found=$(find "$crashes" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  # libFuzzer also keeps any input that took over 10 s (slow-unit-*). On a machine whose other
  # work starves a nice'd fuzzer that is load, not the input: replay it alone to tell.
  slow=$(find "$crashes" -maxdepth 1 -type f -name 'slow-unit-*' | wc -l)
  verdict='nothing found'
  # Interrupted (Ctrl-C, kill -INT): libFuzzer prints its stats and exits 72, having found nothing.
  if [ "$status" -eq 72 ] && [ "$found" -eq 0 ] && grep -q 'libFuzzer: run interrupted' "$log"; then
    status=0 verdict='nothing found (interrupted)'
  fi
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then verdict="FOUND $found input(s) in $crashes (exit $status, log $log)"; fi
  if [ "$slow" -ne 0 ]; then verdict="$verdict; $slow slow unit(s) kept in $crashes: replay each alone (build-fuzz/fuzz/${target}_fuzz FILE)"; fi
  line=$(printf '%-16s %12s executions %8s exec/s  %s' "$target" "${runs:-?}" "${rate:-?}" "$verdict")
  printf '%s  %s  %s\n' "$(date -u +%FT%TZ)" "$commit" "$line" >>build-fuzz/fuzz-summary.txt
  summary+=("$line")
done
printf '%s\n' "${summary[@]}"
# Every run of this build folder continues its target's corpus: the executions of all runs so far,
# per target, are what the corpora have been through.
echo "all runs recorded in build-fuzz/fuzz-summary.txt, per target:"
awk '$5 == "executions" { runs[$3]++; total[$3] += $4 }
     END { for (t in total) printf "  %-16s %12d executions in %d run(s)\n", t, total[t], runs[t] }' \
  build-fuzz/fuzz-summary.txt | sort
