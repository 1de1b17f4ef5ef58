#!/usr/bin/env bash
# The capture's check on a real GPU (issue 18): one script for a device session, to run in one
# shot within 10 minutes on a bare machine (CUDA toolkit with CUPTI; NCCL and PyTorch when there):
#   versions          nvidia-smi, compiler, CMake, CUDA, PyTorch and NCCL versions
#   build             the capture alone (-DSCALECAST_CAPTURE_ONLY=ON); no CUPTI found: stop
#   cuda-job-*        build the C++ CUDA+NCCL job (tests/gpu_trace/gpu/cuda_capture_job.cpp),
#                     capture it with its raw records, check them (scalecast-check-records)
#   torch-job-*       with PyTorch: capture tools/capture/small_job.py, check its raw records
#   overhead          with PyTorch: tools/capture/ddp_train.py (inception_v3, DDP) plain and
#                     captured, each under `timeout`; the median step times and the overhead
# The jobs make one-rank NCCL calls that run on the GPU (AVG allreduce, out-of-place all-gather,
# broadcast, self send/recv in a group, inside NVTX ranges): a one-rank in-place SUM allreduce
# runs nothing in NCCL, and a check of it would pass on host times. The checks: GPU kernels,
# NVTX ranges, every such NCCL call tied to GPU work by its id, no record with a start of 0, each
# ncclBcast recorded once.
#
# Each stage records its status and time and the script goes on (no `set -e`); a stage that
# needs an earlier one's result says why it was skipped. Everything lands in $OUT as two files:
#   summary.txt          one line per stage, the checks' findings, the overhead, the commands
#   device-check.tar.gz  every log, the traces (traces/*), the raw records, the versions
# Exit status: 0 when every stage that ran passed, else 1.
#
#   OUT=DIR tools/capture/device-check.sh      (default OUT: out/capture-check)
#   CAPTURE_BUILD=DIR   use a build that has scalecast and scalecast-check-records instead of
#                       building the capture alone (how the CPU test runs this script)
#   CHECK_BUDGET_S=N    seconds the whole check may take (default 540: the device tool allows 600)
set -u
cd "$(dirname "$0")/../.." || exit 2
repo=$PWD
out=${OUT:-$repo/out/capture-check}
budget_s=${CHECK_BUDGET_S:-540}
mkdir -p "$out" || exit 2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/capture-check.XXXXXX") || exit 2
work=$scratch/work      # packed into the archive
mkdir -p "$work/traces"
summary=$work/summary.txt
failures=0

say() { printf '%s\n' "$*" | tee -a "$summary"; }
seconds_left() { echo $((budget_s - SECONDS)); }

# stage NAME COMMAND...: runs COMMAND with its output in NAME.log; records status and time.
stage() {
  local name=$1 started=$SECONDS status word
  shift
  "$@" >"$work/$name.log" 2>&1
  status=$?
  case $status in
    0) word=ok ;;
    124 | 137) word=timeout ;;
    *) word=FAILED ;;
  esac
  [ "$status" -eq 0 ] || failures=$((failures + 1))
  say "$(printf '%-18s %-8s %4ss  status %d, log %s.log' "$name" "$word" $((SECONDS - started)) "$status" "$name")"
  return "$status"
}
skip() { say "$(printf '%-18s %-8s        %s' "$1" skipped "$2")"; }

# The libnccl.so.2 a job can link: the system's, the CUDA toolkit's, or PyTorch's pip package's.
find_nccl() {
  local dir
  for dir in $(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 / {print $NF}' | xargs -r -n1 dirname) \
    "${CUDA_HOME:-/usr/local/cuda}/lib64" "${CUDA_HOME:-/usr/local/cuda}/lib" \
    "$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)"; do
    if [ -n "$dir" ] && [ -e "$dir/libnccl.so.2" ]; then
      echo "$dir/libnccl.so.2"
      return 0
    fi
  done
  return 1
}

versions() {
  echo "== nvidia-smi"; nvidia-smi || echo "(nvidia-smi failed)"
  echo "== CUDA"; nvcc --version || "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version || echo "(no nvcc)"
  echo "== CMake"; cmake --version | head -1
  echo "== compiler"; c++ --version | head -1
  echo "== PyTorch"
  python3 -c 'import torch, torch.cuda.nccl as n; print("torch", torch.__version__, "CUDA", torch.version.cuda,
"GPU", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None, "NCCL", n.version())' || echo "(no PyTorch)"
  echo "== libnccl.so.2"; find_nccl || echo "(none found)"
  echo "== source"; git -C "$repo" log -1 --oneline 2>/dev/null || echo "(not a git checkout)"
  return 0
}

build_capture() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$repo" -B "$scratch/build" "${generator[@]}" -DSCALECAST_CAPTURE_ONLY=ON -DCMAKE_BUILD_TYPE=Release &&
    cmake --build "$scratch/build" -j "$(nproc)"
}

build_cuda_job() {
  local cuda=${CUDA_HOME:-/usr/local/cuda} nccl
  nccl=$(find_nccl) || { echo "no libnccl.so.2 found (system, $cuda, PyTorch's nvidia-nccl)"; return 1; }
  echo "NCCL: $nccl"
  c++ -O2 -std=c++17 -I"$repo" -I"$cuda/include" "$repo/tests/gpu_trace/gpu/cuda_capture_job.cpp" \
    -o "$scratch/cuda_capture_job" -L"$cuda/lib64" -L"$cuda/lib" -lcublas -lcudart "$nccl" -ldl \
    -Wl,-rpath,"$(dirname "$nccl")" -Wl,-rpath,"$cuda/lib64" -Wl,-rpath,"$cuda/lib"
}

# capture NAME SECONDS COMMAND...: captures COMMAND into traces/NAME with its raw records.
capture() {
  local name=$1 limit=$2
  shift 2
  say "  command: scalecast capture --out $name -- $*"
  SCALECAST_CAPTURE_RAW=1 timeout -k 15 "$limit" "$sc" capture --out "$work/traces/$name" -- "$@"
  local status=$?
  grep -o '"capture\.[a-z_]*": "[^"]*"' "$work/traces/$name/manifest.json" 2>/dev/null | grep -v command
  return "$status"
}

# check NAME ARGS...: the record checks of traces/NAME's rank 0; findings go to the summary too.
check() {
  local name=$1
  shift
  "$checker" "$work/traces/$name/rank-0.records.jsonl" "$@"
}

torchrun=(python3 -m torch.distributed.run --standalone --nproc-per-node 1)

# Median step time (s) of a ddp_train.py log.
median() { awk '/median_step_s/ {print $2}' "$1"; }

overhead() {
  local limit=$1 steps=30 plain captured
  say "  command: ${torchrun[*]} tools/capture/ddp_train.py --steps $steps --batch 64"
  timeout -k 15 "$limit" "${torchrun[@]}" tools/capture/ddp_train.py --steps "$steps" --batch 64 >"$work/ddp-plain.log" 2>&1
  say "  command: scalecast capture --out inception-ddp --steps 10:$steps -- (the same)"
  timeout -k 15 "$limit" "$sc" capture --out "$work/traces/inception-ddp" --steps "10:$steps" -- \
    "${torchrun[@]}" tools/capture/ddp_train.py --steps "$steps" --batch 64 >"$work/ddp-captured.log" 2>&1
  plain=$(median "$work/ddp-plain.log")
  captured=$(median "$work/ddp-captured.log")
  if [ -z "$plain" ] || [ -z "$captured" ]; then
    echo "no median step time (plain: '${plain}', captured: '${captured}'): see ddp-plain.log, ddp-captured.log"
    return 1
  fi
  python3 -c "p, c = $plain, $captured; print(f'plain {p*1e3:.2f} ms/step, captured {c*1e3:.2f} ms/step, overhead {100*(c-p)/p:+.2f}%')"
}

pack() {
  cp "$summary" "$out/summary.txt"
  tar -czf "$out/device-check.tar.gz" -C "$work" . || return 1
  # The device tool brings back files of up to 16 MiB: without the big trace if it is over.
  if [ "$(stat -c %s "$out/device-check.tar.gz")" -gt $((15 * 1024 * 1024)) ]; then
    tar -czf "$out/device-check.tar.gz" -C "$work" --exclude=./traces/inception-ddp . &&
      echo "note: traces/inception-ddp left out of the archive (over 15 MiB)" >>"$out/summary.txt"
  fi
}

say "scalecast capture device check, $(date -u '+%Y-%m-%d %H:%M UTC'), budget ${budget_s}s"
stage versions versions
cat "$work/versions.log"

if [ -n "${CAPTURE_BUILD:-}" ]; then
  build_dir=$CAPTURE_BUILD
  skip build "using CAPTURE_BUILD=$build_dir"
else
  build_dir=$scratch/build
  stage build build_capture
fi
sc=$build_dir/scalecast
checker=$build_dir/scalecast-check-records
library=$build_dir/gpu_trace/libscalecast_gpu_trace.so
have_cupti=no
if [ -x "$sc" ] && ldd "$library" 2>/dev/null | grep -q libcupti; then have_cupti=yes; fi
if [ "$have_cupti" = no ]; then
  failures=$((failures + 1))
  say "STOP: the capture was not built with CUPTI ($library does not link libcupti, or no $sc):"
  say "      CMake found no CUDA toolkit with CUPTI; set CUDAToolkit_ROOT (see build.log)"
fi

if [ "$have_cupti" = yes ] && stage cuda-job-build build_cuda_job; then
  if stage cuda-job-capture capture cuda-job 180 "$scratch/cuda_capture_job"; then
    stage cuda-job-check check cuda-job --steps 5 --broadcasts 10 --tied allreduce,allgather,send,recv \
      --ranges step,fill,gemm,allreduce_avg,allgather,broadcast,sendrecv
    sed 's/^/  /' "$work/cuda-job-check.log" | tee -a "$summary"
  else
    skip cuda-job-check "no capture"
  fi
else
  skip cuda-job-capture "no job or no CUPTI"
fi

have_torch=no
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null && have_torch=yes
if [ "$have_cupti" = yes ] && [ "$have_torch" = yes ]; then
  if stage torch-job-capture capture torch-job 240 "${torchrun[@]}" tools/capture/small_job.py; then
    stage torch-job-check check torch-job --steps 6 --broadcasts 6 --tied allreduce,allgather,send,recv \
      --ranges step,gemm,allreduce_avg,allgather,broadcast,sendrecv
    sed 's/^/  /' "$work/torch-job-check.log" | tee -a "$summary"
  else
    skip torch-job-check "no capture"
  fi
  limit=$((($(seconds_left) - 40) / 2))
  [ "$limit" -gt 170 ] && limit=170
  if [ "$limit" -ge 60 ]; then
    stage overhead overhead "$limit"
    sed 's/^/  /' "$work/overhead.log" | tee -a "$summary"
  else
    skip overhead "only $(seconds_left)s of the budget left"
  fi
else
  skip torch-job-capture "PyTorch with a GPU: $have_torch, CUPTI: $have_cupti"
  skip overhead "needs PyTorch with a GPU"
fi

say "stages failed: $failures; elapsed ${SECONDS}s"
say "traces (in the archive): traces/cuda-job, traces/torch-job, traces/inception-ddp (window 10:30)"
pack || echo "packing into $out failed"
echo "== $out"
ls -l "$out"
rm -rf "$scratch"
[ "$failures" -eq 0 ]
