#!/usr/bin/env bash
# The main job: the seed study (Pal et al., IEEE Micro 2019). For Inception-V3, GNMT and
# BigLSTM on DGX-1 (V100) clusters from 8 to 4,096 GPUs: time to train under data parallelism
# (dp) and hybrid workers of 2, 4 and 8 GPUs that split the model (hybrid:M); the best strategy
# at each scale, the crossover, and hybrid's speedup over DP at the largest scale. Each sweep
# writes sweep.csv, sweep.json and two SVG plots (PNG too when rsvg-convert is present) to
# out/seed-study/<workload>/.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/build.sh --target scalecast >/dev/null
platform=${PLATFORM:-dgx1-v100}
workloads=${WORKLOADS:-"inception_v3 gnmt biglstm"}
gpus=${GPUS:-8-4096}
strategies=${STRATEGIES:-dp,hybrid:2,hybrid:4,hybrid:8}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
out=${OUT:-out/seed-study}
# WITHOUT_DP_OVERHEADS=1 runs the same study on the platform less two of a data-parallel step's
# overheads (docs/data-parallel.md): NCCL kernels sharing the GPU (gpu.multiprocessors left out)
# and stragglers (variability.compute_cv 0). VERSUS=DIR adds to the summary what moved against
# such a run (tools/update-readme.sh main runs both).
if [ -n "${WITHOUT_DP_OVERHEADS:-}" ]; then
  source_yaml=$platform
  [ -f "$source_yaml" ] || source_yaml=platforms/$platform.yaml
  mkdir -p "$out"
  { grep -v '^ *multiprocessors:' "$source_yaml"; printf 'variability:\n  compute_cv: 0\n'; } >"$out/platform.yaml"
  platform=$out/platform.yaml
fi
start=$(date +%s.%N)
for workload in $workloads; do
  echo "== $workload on $platform: $strategies at $gpus GPUs ($jobs jobs)" >&2
  ./build/scalecast sweep --platform "$platform" --workload "$workload" --gpus "$gpus" \
    --strategies "$strategies" --jobs "$jobs" --out "$out/$workload"
  echo
  if command -v rsvg-convert >/dev/null; then
    for svg in "$out/$workload"/*.svg; do rsvg-convert -o "${svg%.svg}.png.tmp" "$svg" && mv "${svg%.svg}.png.tmp" "${svg%.svg}.png"; done
  fi
done
./tools/seed-study-summary.py "$out" $workloads ${VERSUS:+--versus "$VERSUS"}
echo
echo "plots and tables: $out/<workload>/ (sweep.csv, sweep.json, time_to_train.svg/.png, step_breakdown.svg/.png)"
echo "study wall time: $(python3 -c "import sys, time; print('%.1f' % (time.time() - float(sys.argv[1])))" "$start") s"
