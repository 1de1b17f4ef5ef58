#!/usr/bin/env bash
# Regenerates the README's measured blocks from the commands that measure them, so that no
# figure in the README is edited by hand. Each block sits between two marker lines:
#   <!-- BEGIN generated: NAME -->   and   <!-- END generated: NAME -->
# and holds the command's output with the machine, date and commit it was measured at.
#
#   tools/update-readme.sh             every block (validate, then the benchmarks: many minutes)
#   tools/update-readme.sh validate    the fidelity table only (`scalecast validate`)
#   tools/update-readme.sh bench       the benchmarks only (`scalecast-bench --repeat 3 --full`)
#
# Measure on an otherwise idle machine: the benchmarks' wall times are what they are for.
set -euo pipefail
cd "$(dirname "$0")/.."
blocks=("${@:-validate bench}")
blocks=(${blocks[*]})
./tools/build.sh >/dev/null

stamp() {
  echo "(measured $(date -u +%Y-%m-%d) at commit $(git rev-parse --short HEAD), $(nproc) cores," \
       "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Release build)"
}

replace_block() {  # NAME FILE-WITH-CONTENT
  python3 - "$1" "$2" <<'PY'
import re, sys
name, content_file = sys.argv[1], sys.argv[2]
content = open(content_file).read().rstrip("\n")
readme = open("README.md").read()
begin, end = f"<!-- BEGIN generated: {name} -->", f"<!-- END generated: {name} -->"
if begin not in readme or end not in readme:
    sys.exit(f"update-readme: README.md has no block '{name}' ({begin} ... {end})")
pattern = re.escape(begin) + r".*?" + re.escape(end)
readme = re.sub(pattern, lambda _: f"{begin}\n{content}\n{end}", readme, count=1, flags=re.S)
tmp = "README.md.tmp"
open(tmp, "w").write(readme)
import os; os.replace(tmp, "README.md")
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
      { echo '```'; echo '$ scalecast-bench --repeat 3 --full'; ./build/scalecast-bench --repeat 3 --full; echo '```'; stamp; } >"$out"
      replace_block bench "$out" ;;
    *) echo "update-readme: unknown block '$block' (validate, bench)" >&2; exit 2 ;;
  esac
  echo "update-readme: regenerated '$block'" >&2
done
