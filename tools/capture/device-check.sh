#!/usr/bin/env bash
# The capture's check on a real GPU (issue 4, item 6), as one script for a device session: builds
# the capture alone (no Debian packages there), captures (a) small_job.py (cuBLAS GEMM, cuDNN
# convolution, 1-rank NCCL allreduce) and (b) ddp_train.py (inception_v3, DDP over NCCL, world size
# 1, 20 steps, batch 64), runs (b) without capture to measure the overhead, and leaves the traces,
# the commands and the figures in $OUT (default out/capture-check). Simulate the traces afterwards
# on a full build: scalecast simulate --trace DIR --platform dgx-h100 --gpus 8 … 1024.
#
# Prepared, not yet run: no GPU was lent to the task that wrote it.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out/capture-check}
mkdir -p "$out"
cmake -S . -B build-capture -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALECAST_CAPTURE_ONLY=ON >/dev/null
ninja -C build-capture
sc=build-capture/scalecast
run1="torchrun --standalone --nproc-per-node 1"

$sc capture --out "$out/small-job" -- $run1 tools/capture/small_job.py 2>&1 | tee "$out/small-job.log"
echo "$sc capture --out small-job -- $run1 tools/capture/small_job.py" > "$out/small-job.command"

train="tools/capture/ddp_train.py --steps 20 --batch 64 --nvtx"
$run1 $train | tee "$out/plain.log"
$sc capture --out "$out/inception-ddp" --steps 5:20 -- $run1 $train | tee "$out/captured.log"
echo "$sc capture --out inception-ddp --steps 5:20 -- $run1 $train" > "$out/inception-ddp.command"
plain=$(awk '/median_step_s/ {print $2}' "$out/plain.log")
captured=$(awk '/median_step_s/ {print $2}' "$out/captured.log")
python3 -c "p, c = $plain, $captured; print(f'plain {p*1e3:.2f} ms, captured {c*1e3:.2f} ms, overhead {100*(c-p)/p:.2f}%')" \
  | tee "$out/overhead.txt"
