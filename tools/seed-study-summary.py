#!/usr/bin/env python3
"""The seed study's summary, read from the sweeps `tools/run-main.sh` wrote.

    seed-study-summary.py OUT WORKLOAD...                   the summary and DP's breakdown
    seed-study-summary.py OUT WORKLOAD... --versus OUT2     and what moved against OUT2, the
                                                            same study without DP's overheads

The first table is the study's answer (best strategy per scale, crossover, hybrid's gain over
DP at the largest scale). The second divides DP's step at the largest scale between compute
and the three things a data-parallel step pays (docs/data-parallel.md): allreduce time the
backward pass does not hide, NCCL kernels sharing the GPU, and the slowest rank. Interference
and stragglers are parts of the compute time, so compute here is the rest of it.
"""
import json
import os
import sys

PAPER = {"inception_v3": ">= 26.5%", "gnmt": "8%", "biglstm": "22%"}


def load(out, workload):
    path = os.path.join(out, workload, "sweep.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        # The sweeps are the input: a missing or unreadable one is an error naming it (exit 2).
        sys.stderr.write(f"seed-study-summary.py: {path}: {error} (run tools/run-main.sh first)\n")
        sys.exit(2)


def answer(sweep):
    """(best at smallest, best at largest, crossover, hybrid vs DP at largest) as text."""
    best = sweep["best"]
    cross = sweep["crossover_gpus"]
    speedup = sweep["hybrid_speedup_at_largest"]
    versus = "-" if speedup is None else "%+.1f%% (%s)" % (speedup * 100, sweep["best_hybrid_at_largest"])
    return (f"{best[0]['strategy']} @{best[0]['gpus']}", f"{best[-1]['strategy']} @{best[-1]['gpus']}",
            str(cross) if cross else "none", versus)


def print_answers(out, workloads):
    print("Seed study summary (time to train; hybrid speedup = DP time / best hybrid time - 1)\n")
    print(f"{'workload':<14}{'best at smallest':>18}{'best at largest':>18}{'crossover (GPUs)':>18}"
          f"{'hybrid vs DP at largest':>26}{'paper':>10}")
    for w in workloads:
        smallest, largest, cross, versus = answer(load(out, w))
        print(f"{w:<14}{smallest:>18}{largest:>18}{cross:>18}{versus:>26}{PAPER.get(w, ''):>10}")


def dp_at_largest(sweep):
    rows = [r for r in sweep["rows"] if r["strategy"] == "dp"]
    return max(rows, key=lambda r: r["gpus"]) if rows else None


def print_dp_breakdown(out, workloads):
    print("\nDP's step at the largest scale (ms; % of the step)\n")
    print(f"{'workload':<14}{'GPUs':>6}{'step':>9}{'compute':>16}{'exposed comm':>16}"
          f"{'NCCL sharing GPU':>18}{'slowest rank':>16}")
    for w in workloads:
        r = dp_at_largest(load(out, w))
        if r is None:
            continue
        step = r["step_time_s"]
        own = r["compute_s"] - r["interference_s"] - r["straggler_s"]
        parts = [own, r["exposed_comm_s"], r["interference_s"], r["straggler_s"]]
        cells = [f"{p * 1e3:.1f} ({p / step * 100:.1f}%)" for p in parts]
        print(f"{w:<14}{r['gpus']:>6}{step * 1e3:>9.1f}{cells[0]:>16}{cells[1]:>16}{cells[2]:>18}{cells[3]:>16}")


def print_moved(out, versus_out, workloads):
    print("\nWhat DP's overheads move (this study against the same one without NCCL sharing the GPU"
          "\nand stragglers)\n")
    print(f"{'workload':<14}{'crossover (GPUs)':>20}{'hybrid vs DP at largest':>40}")
    for w in workloads:
        _, _, cross, versus = answer(load(out, w))
        _, _, cross0, versus0 = answer(load(versus_out, w))
        print(f"{w:<14}{cross0 + ' -> ' + cross:>20}{versus0 + ' -> ' + versus:>40}")


def main(argv):
    versus_out = None
    if "--versus" in argv:
        i = argv.index("--versus")
        versus_out = argv[i + 1] if i + 1 < len(argv) else "-"
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 2 or (versus_out is not None and versus_out.startswith("-")):
        sys.stderr.write(__doc__)
        sys.exit(2)
    out, workloads = argv[0], argv[1:]
    for folder in [out] + ([versus_out] if versus_out else []):
        for w in workloads:
            load(folder, w)  # every sweep readable before any line is printed
    print_answers(out, workloads)
    print_dp_breakdown(out, workloads)
    if versus_out:
        print_moved(out, versus_out, workloads)


if __name__ == "__main__":
    main(sys.argv[1:])
