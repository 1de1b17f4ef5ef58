#!/usr/bin/env python3
"""Writes a hand-made 1,024-rank DP trace in which ranks do not all take the same time (a
deterministic spread of compute times, and a slow node: ranks 512-519), to show what
`scalecast inspect --svg` draws when ranks differ: too many different rows for one row each, so
the picture shows buckets of ranks. Usage: make-straggler-trace.py OUT.json"""
import json
import sys

RANKS = 1024
programs = []
for rank in range(RANKS):
    # A spread of +-10% around 10 ms forward / 20 ms backward, the same for every run.
    spread = 1.0 + 0.1 * (((rank * 37) % 101) / 50.0 - 1.0)
    slow = 1.3 if 512 <= rank < 520 else 1.0
    forward_s = 0.010 * spread * slow
    backward_s = 0.020 * spread * slow
    programs.append({"tasks": [
        {"kind": "compute", "name": "forward", "step": 0, "duration_s": round(forward_s, 9)},
        {"kind": "compute", "name": "backward", "step": 0, "duration_s": round(backward_s, 9)},
        {"kind": "collective", "name": "allreduce gradients", "step": 0, "stream": 1, "deps": [1],
         "op": "allreduce", "communicator": 0, "bytes": 100 * 1024 * 1024},
        {"kind": "compute", "name": "optimizer", "step": 0, "deps": [2], "duration_s": 0.002},
    ]})
trace = {
    "format": "scalecast-trace", "version": 1, "origin": "handwritten",
    "metadata": {"note": "1,024 ranks with spread compute times and a slow node (ranks 512-519)"},
    "communicators": [{"id": 0, "name": "world", "ranks": list(range(RANKS))}],
    "programs": programs,
    "rank_programs": list(range(RANKS)),
}
with open(sys.argv[1], "w") as out:
    json.dump(trace, out)
