#!/usr/bin/env python3
"""Cuts the kineto fuzz target's seeds (tests/fuzz/seeds/kineto/) from the repository's real
traces (tests/data/shared/kineto/): a few KB each, so that the fuzzer runs thousands of inputs
a second instead of inflating megabytes per input.

Each seed keeps the trace's top-level fields (one device of deviceProperties, distributedInfo)
and the events of a short window of the first profiled step up to its first NCCL kernel launch:
the CPU operators, runtime calls and annotations that start in the window, the step's first
copy and memset launches, the GPU work and flows those launches correlate with, and the step's
ProfilerStep annotation stretched or shortened to what is kept. The kinds of event the reader
keeps all appear: cpu_op, cuda_runtime, kernels with NCCL metadata and without, gpu_memcpy,
gpu_memset and, where the trace has them, memory instants. Written plain (.json) and
gzip-compressed (.json.gz): the reader takes both.

    tests/fuzz/seeds/cut_kineto_seeds.py      (rewrites tests/fuzz/seeds/kineto/)
"""
import gzip
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[3]
SOURCES = ROOT / "tests/data/shared/kineto"
OUT = ROOT / "tests/fuzz/seeds/kineto"
MAX_EVENTS = 16  # CPU-side events kept per seed (their GPU work and flows come on top)


def launch_of(event, by_correlation):
    return next(e for e in by_correlation[event["args"]["correlation"]] if e.get("cat") == "cuda_runtime")


def cut(trace):
    events = trace["traceEvents"]
    step = next(e for e in events if e.get("name", "").startswith("ProfilerStep#"))
    by_correlation = {}
    for e in events:
        correlation = e.get("args", {}).get("correlation")
        if correlation is not None:
            by_correlation.setdefault(correlation, []).append(e)
    gpu = sorted((e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e["ts"] >= step["ts"]
                  and "correlation" in e.get("args", {})), key=lambda e: e["ts"])
    # The window ends at the step's first NCCL launch (its first kernel launch in a trace without
    # NCCL kernels, DDP on one GPU) and holds the host events just before it.
    last = next((e for e in gpu if e.get("cat") == "kernel" and "nccl" in e["name"].lower()), None)
    last = last or next(e for e in gpu if e.get("cat") == "kernel")
    end_ts = launch_of(last, by_correlation)["ts"]
    host_side = sorted((e for e in events if e.get("ph") in ("X", "i") and e.get("pid") != 0 and "ts" in e
                        and e.get("cat") in ("cpu_op", "cuda_runtime", "user_annotation", "cpu_instant_event")
                        and step["ts"] <= e["ts"] <= end_ts), key=lambda e: e["ts"])
    kept = host_side[-MAX_EVENTS:]
    # Plus the step's first copy and memset, with their launches, where the window has none.
    for cat in ("gpu_memcpy", "gpu_memset"):
        first = next((e for e in gpu if e.get("cat") == cat), None)
        if first and launch_of(first, by_correlation) not in kept:
            kept.append(launch_of(first, by_correlation))
    correlations = {e["args"]["correlation"] for e in kept if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    device_side = [e for c in sorted(correlations) for e in by_correlation[c] if e.get("cat") != "cuda_runtime"]
    flows = [e for e in events if e.get("cat") == "ac2g" and e.get("id") in correlations]
    start = min(e["ts"] for e in kept)
    end = max(e["ts"] + e.get("dur", 0) for e in kept + device_side)
    window_step = dict(step, ts=start, dur=round(end - start + 1, 3))
    metadata = [e for e in events if e.get("ph") == "M"][:4]
    head = {k: v for k, v in trace.items() if k in ("schemaVersion", "distributedInfo")}
    if "deviceProperties" in trace:
        head["deviceProperties"] = trace["deviceProperties"][:1]
    head["traceEvents"] = metadata + [window_step] + kept + device_side + flows
    return head


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for source in sorted(SOURCES.glob("*.json.gz")):
        with gzip.open(source, "rt") as f:
            seed = cut(json.load(f))
        text = json.dumps(seed, separators=(",", ":")).encode()
        stem = source.name.removesuffix(".json.gz")
        (OUT / f"{stem}.json").write_bytes(text)
        (OUT / f"{stem}.json.gz").write_bytes(gzip.compress(text, mtime=0))
        print(f"{stem}: {len(seed['traceEvents'])} events, {len(text)} bytes")


if __name__ == "__main__":
    main()
