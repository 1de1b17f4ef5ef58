#!/usr/bin/env python3
"""Steady iteration rates of Lambda's BERT SQuAD runs (large and base), from their published logs.

The fidelity table's Lambda BERT rows (tests/validation/cases.yaml, "lambda ... bert-large squad",
"lambda ... bert-base squad" and "what-if bert-... squad ...") divide these rates rather than the
harness's CSV:
run_squad.py's own sequences/s divide a 100-step run by the whole loop's time, first steps
included, and those cost more with more processes. A run's steady rate is the median of the
progress bar's rate (rank 0's tqdm, iterations per second) over iterations 40-89 of the first
epoch, or its middle third when the epoch is shorter than 100 iterations.

Usage: lambda_bert_steady_rates.py GIT_DIR
  GIT_DIR: a clone (or bare mirror) of github.com/lambdal/deeplearning-benchmark; the table
  used commit aa5addb. Prints, for every run directory with a BERT SQuAD log, its batch,
  steady iterations/s and sequences/s.
"""
import re
import statistics
import subprocess
import sys


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True, check=True).stdout


def steady_rate(log_text):
    """Median tqdm rate (it/s) over the first epoch's steady iterations, or None."""
    rates, total = [], None
    for m in re.finditer(r"\| *(\d+)/(\d+) \[[^\]]*?, *([0-9.]+)(it/s|s/it)\]", log_text.replace("\r", "\n")):
        iteration, bar_total, rate = int(m.group(1)), int(m.group(2)), float(m.group(3))
        total = total or bar_total
        if bar_total != total:  # the next epoch's bar
            break
        if m.group(4) == "s/it":
            rate = 1 / rate
        first, last = (40, 89) if total >= 100 else (total // 3, int(0.9 * total))
        if first <= iteration <= last:
            rates.append(rate)
    return statistics.median(rates) if len(rates) >= 10 else None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    git_dir = sys.argv[1]
    for path in git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", "pytorch").split("\n"):
        if not re.search(r"/PyTorch_bert_(large|base)_squad_FP(16|32)/[^/]+\.txt$", path):
            continue
        run = path.rsplit("/", 1)[0]
        try:
            batch = int(re.search(r"GLOBAL_BATCH (\d+)", git(git_dir, "show", f"HEAD:{run}/benchmark.para")).group(1))
        except (subprocess.CalledProcessError, AttributeError):
            continue  # the oldest runs record no batch
        rate = steady_rate(git(git_dir, "show", f"HEAD:{path}"))
        shown = "n/a" if rate is None else f"{rate:.3g} it/s  {rate * batch:.1f} seq/s"
        print(f"{run}  batch {batch}  {shown}")


if __name__ == "__main__":
    main()
