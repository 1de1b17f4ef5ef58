#!/usr/bin/env bash
# The main job on built-in defaults: DP scaling of the built-in ResNet-50 workload on dgx1-v100
# clusters from 8 to 4,096 GPUs: step time, compute and exposed communication per scale.
# Each point is one `scalecast simulate` process (SimGrid runs one simulation per process);
# two run at a time. Results also land in out/main/scaling.json.
set -euo pipefail
cd "$(dirname "$0")/.."
./tools/build.sh --target scalecast >/dev/null
platform=${PLATFORM:-dgx1-v100}
workload=${WORKLOAD:-resnet50}
gpus_list=${GPUS:-"8 16 32 64 128 256 512 1024 2048 4096"}
jobs=${JOBS:-2}
out=out/main
mkdir -p "$out/points"
echo "DP scaling of $workload on $platform (simulating ${gpus_list// /, } GPUs, $jobs at a time)..." >&2
printf '%s\n' $gpus_list | xargs -P "$jobs" -I{} sh -c \
  "./build/scalecast simulate --json --platform '$platform' --workload '$workload' --gpus {} > '$out/points/{}.json.tmp' && mv '$out/points/{}.json.tmp' '$out/points/{}.json'"
python3 - "$out" $gpus_list <<'PY'
import json, sys, os
out, gpus = sys.argv[1], sys.argv[2:]
rows = [json.load(open(os.path.join(out, "points", f"{g}.json"))) for g in gpus]
base = rows[0]
print(f"\nDP scaling: {base['source']} on {base['platform']} (per-GPU batch fixed: weak scaling)\n")
print(f"{'GPUs':>6} {'step (ms)':>10} {'compute (ms)':>13} {'exposed comm (ms)':>18} {'efficiency':>11} {'algorithms':>22} {'sim wall (s)':>13}")
for r in rows:
    eff = base['step_time_s'] / r['step_time_s']
    algos = ",".join(f"{k}:{v}" for k, v in r['algorithms'].items())
    print(f"{r['gpus']:>6} {r['step_time_s']*1e3:>10.2f} {r['compute_s']*1e3:>13.2f} {r['exposed_comm_s']*1e3:>18.2f} {eff:>10.1%} {algos:>22} {r['sim_wall_s']:>13.2f}")
tmp = os.path.join(out, "scaling.json.tmp")
json.dump(rows, open(tmp, "w"), indent=2)
os.replace(tmp, os.path.join(out, "scaling.json"))
print(f"\nwritten: {out}/scaling.json")
PY
