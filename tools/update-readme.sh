#!/usr/bin/env bash
# Regenerates the README's measured and example blocks from the commands that produce them, so
# that no figure in the README is edited by hand. Each block sits between two marker lines:
#   <!-- BEGIN generated: NAME -->   and   <!-- END generated: NAME -->
#
#   validate   the fidelity table (`scalecast validate`)
#   bench      the benchmarks (`scalecast-bench $BENCH_ARGS`, default `--repeat 3 --full`: many
#              minutes, the strategy search alone about 20; measure on an otherwise idle machine)
#   main       the main job's summary (`tools/run-main.sh`), with what DP's overheads move (the
#              same study run first with WITHOUT_DP_OVERHEADS=1), and the plots the README shows
#              (docs/seed-study/*.png) copied from that run
#   run        every example block: its first line `$ scalecast ...` is run again (from the
#              repository root, `scalecast` being build/scalecast) and its output replaces the
#              rest of the block
#
#   tools/update-readme.sh                 validate, main and run (not bench)
#   tools/update-readme.sh bench           only the benchmarks
#   tools/update-readme.sh validate run    a list
set -euo pipefail
cd "$(dirname "$0")/.."
blocks=("$@")
[ ${#blocks[@]} -eq 0 ] && blocks=(validate main run)
./tools/build.sh >/dev/null

stamp() {
  echo "(measured $(date -u +%Y-%m-%d) at commit $(git rev-parse --short HEAD), $(nproc) cores," \
       "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Release build)"
}

replace_block() {  # NAME FILE-WITH-CONTENT: the first block of that name
  python3 - "$1" "$2" <<'PY'
import os, re, sys
name, content_file = sys.argv[1], sys.argv[2]
content = open(content_file).read().rstrip("\n")
readme = open("README.md").read()
begin, end = f"<!-- BEGIN generated: {name} -->", f"<!-- END generated: {name} -->"
if begin not in readme or end not in readme:
    sys.exit(f"update-readme: README.md has no block '{name}' ({begin} ... {end})")
readme = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: f"{begin}\n{content}\n{end}", readme, count=1, flags=re.S)
open("README.md.tmp", "w").write(readme)
os.replace("README.md.tmp", "README.md")
PY
}

# Every `run` block: rerun its command, keep the command line, replace the output.
rerun_examples() {
  python3 - <<'PY'
import os, re, subprocess, sys
readme = open("README.md").read()
pattern = re.compile(r"(<!-- BEGIN generated: run -->\n```\n)\$ (scalecast [^\n]*)\n.*?(```\n<!-- END generated: run -->)", re.S)
def rerun(match):
    command = match.group(2)
    result = subprocess.run("./build/" + command, shell=True, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"update-readme: `{command}` failed ({result.returncode}):\n{result.stderr}")
    return f"{match.group(1)}$ {command}\n{result.stdout.rstrip()}\n{match.group(3)}"
readme, count = pattern.subn(rerun, readme)
open("README.md.tmp", "w").write(readme)
os.replace("README.md.tmp", "README.md")
print(f"update-readme: reran {count} example(s)", file=sys.stderr)
PY
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
for block in "${blocks[@]}"; do
  case "$block" in
    validate)
      { echo '```'; echo '$ scalecast validate'; ./build/scalecast validate; echo '```'; stamp; } >"$out"
      replace_block validate "$out" ;;
    bench)
      bench_args=${BENCH_ARGS:---repeat 3 --full}
      # shellcheck disable=SC2086  # a list of arguments
      { echo '```'; echo "\$ scalecast-bench $bench_args"; ./build/scalecast-bench $bench_args; echo '```'; stamp; } >"$out"
      replace_block bench "$out" ;;
    main)
      without=out/seed-study-without-dp-overheads
      WITHOUT_DP_OVERHEADS=1 OUT=$without JOBS=2 ./tools/run-main.sh >/dev/null 2>&1
      { echo '```'; echo "$ VERSUS=$without ./tools/run-main.sh   # its summary, at the end"
        VERSUS=$without JOBS=2 ./tools/run-main.sh 2>/dev/null | sed -n '/^Seed study summary/,$p'; echo '```'; stamp; } >"$out"
      replace_block main "$out"
      # The README shows these plots: the same run's, so that they never disagree with its table.
      for workload in inception_v3 gnmt biglstm; do
        cp "out/seed-study/$workload/time_to_train.png" "docs/seed-study/$workload-time_to_train.png"
      done
      cp out/seed-study/inception_v3/step_breakdown.png docs/seed-study/inception_v3-step_breakdown.png ;;
    run) mkdir -p out/readme; rerun_examples ;;
    *) echo "update-readme: unknown block '$block' (validate, bench, main, run)" >&2; exit 2 ;;
  esac
  echo "update-readme: regenerated '$block'" >&2
done
