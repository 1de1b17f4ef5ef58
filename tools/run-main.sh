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
python3 - "$out" "$start" $workloads <<'PY'
import json, os, sys, time
out, start, workloads = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
print("Seed study summary (time to train; hybrid speedup = DP time / best hybrid time - 1)\n")
print(f"{'workload':<14}{'best at smallest':>18}{'best at largest':>18}{'crossover (GPUs)':>18}{'hybrid vs DP at largest':>26}{'paper':>10}")
paper = {"inception_v3": ">= 26.5%", "gnmt": "8%", "biglstm": "22%"}
for w in workloads:
    s = json.load(open(os.path.join(out, w, "sweep.json")))
    best = s["best"]
    speedup = s["hybrid_speedup_at_largest"]
    cross = s["crossover_gpus"]
    smallest = best[0]["strategy"] + " @" + str(best[0]["gpus"])
    largest = best[-1]["strategy"] + " @" + str(best[-1]["gpus"])
    crossover = str(cross) if cross else "none"
    versus = "-" if speedup is None else "%+.1f%% (%s)" % (speedup * 100, s["best_hybrid_at_largest"])
    print(f"{w:<14}{smallest:>18}{largest:>18}{crossover:>18}{versus:>26}{paper.get(w, ''):>10}")
print(f"\nplots and tables: {out}/<workload>/ (sweep.csv, sweep.json, time_to_train.svg/.png, step_breakdown.svg/.png)")
print(f"study wall time: {time.time() - start:.1f} s")
PY
