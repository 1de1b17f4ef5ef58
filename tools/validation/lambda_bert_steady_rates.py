#!/usr/bin/env python3
"""Steady iteration rates of Lambda's BERT SQuAD runs (large and base), from their published logs.

The fidelity table's Lambda BERT rows (tests/validation/cases.yaml, "lambda ... bert-large squad",
"lambda ... bert-base squad" and "what-if bert-... squad ...") divide these rates rather than the
harness's CSV: run_squad.py's own sequences/s divide batch x GPUs x max_steps by the whole loop's
time, first steps included (they cost more with more processes), and count max_steps even when
the epochs end sooner. A run's steady rate is the median of the progress bar's rate (rank 0's
tqdm, iterations per second) over steady iterations (steady_rate below).

Usage: lambda_bert_steady_rates.py GIT_DIR | --self-test
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


def progress_bars(log_text):
    """Rank 0's tqdm progress bars, one per epoch: lists of (iteration, rate in it/s)."""
    bars = []
    for m in re.finditer(r"\| *(\d+)/(\d+) \[[^\]]*?, *([0-9.]+)(it/s|s/it)\]", log_text.replace("\r", "\n")):
        iteration, total, rate = int(m.group(1)), int(m.group(2)), float(m.group(3))
        if m.group(4) == "s/it":
            rate = 1 / rate
        if not bars or total != bars[-1]["total"] or iteration < bars[-1]["points"][-1][0]:
            bars.append({"total": total, "points": []})
        bars[-1]["points"].append((iteration, rate))
    return bars


def steady_rate(log_text):
    """Median tqdm rate (it/s) over steady iterations, or None when the log has too few.

    tqdm shows a moving average of the iteration time (weight 0.3 on the newest), so the first
    epoch's slow first steps weigh on its readings for some 20 iterations. Epochs of 100
    iterations or more: iterations 40-89 of the first. Of 60 to 99: iterations 20 to 90% of it.
    Shorter: the second epoch's, from its fourth iteration (warm from the first).
    """
    bars = progress_bars(log_text)
    if not bars:
        return None
    total = bars[0]["total"]
    if total >= 100:
        points, first, last = bars[0]["points"], 40, 89
    elif total >= 60:
        points, first, last = bars[0]["points"], 20, int(0.9 * total)
    elif len(bars) > 1:
        points, first, last = bars[1]["points"], 3, total - 1
    else:
        return None
    rates = [rate for iteration, rate in points if first <= iteration <= last]
    return statistics.median(rates) if len(rates) >= 10 else None


def self_test():
    """The parser on made-up progress bars: exit 0 when it reads what they hold."""
    def bar(total, rates):
        return "\r".join(f"Iteration: {i * 100 // total}%|##| {i}/{total} [00:10<00:20, {r}it/s]"
                         for i, r in enumerate(rates))
    # A long epoch: iterations 40-89 at 2.0 it/s, the first 40 slower, the rest faster.
    long_epoch = bar(792, ["1.0"] * 40 + ["2.0"] * 50 + ["9.0"] * 10)
    # A 30-iteration epoch, then the next: the second (warm) epoch's bar counts, from iteration 3.
    short_epochs = bar(30, ["1.0"] * 30) + "\r" + bar(30, ["9.0"] * 3 + ["3.0"] * 27)
    # A 70-iteration epoch: iterations 20-63 of it.
    mid_epoch = bar(70, ["1.0"] * 20 + ["4.0"] * 44 + ["9.0"] * 6)
    # Seconds per iteration are inverted; too few iterations give no rate.
    slow = bar(792, ["0.5"] * 100).replace("it/s", "s/it")
    checks = [(steady_rate(long_epoch), 2.0), (steady_rate(short_epochs), 3.0), (steady_rate(mid_epoch), 4.0),
              (steady_rate(slow), 2.0), (steady_rate(bar(30, ["1.0"] * 30)), None),
              (steady_rate(bar(792, ["2.0"] * 45)), None)]
    failed = [(got, want) for got, want in checks if got != want]
    print("self-test: " + ("ok" if not failed else f"failed {failed}"))
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    git_dir = sys.argv[1]
    try:
        paths = git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", "pytorch").split("\n")
    except subprocess.CalledProcessError as error:
        print(f"lambda_bert_steady_rates.py: {git_dir}: not a git directory of lambdal/deeplearning-benchmark "
              f"({error.stderr.strip()})", file=sys.stderr)
        sys.exit(2)
    for path in paths:
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
