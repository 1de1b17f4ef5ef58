#!/usr/bin/env bash
# Installs every Debian package scalecast needs to build and test. Idempotent: when all
# packages are present it prints nothing and exits at once.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libsimgrid-dev           # SimGrid 3.32: the flow-level network engine
  libyaml-cpp-dev          # platform and workload YAML
  libboost-program-options-dev
  nlohmann-json3-dev       # traces, --json output
  googletest libgtest-dev libgmock-dev
  libbenchmark-dev         # the benchmark command
  librsvg2-bin             # rsvg-convert: render SVG plots to PNG for a look
  python3                  # tools/run-main.sh formats its table
  coinor-libcbc-dev        # COIN-OR CBC: the placement integer program
  libopenmpi-dev openmpi-bin  # sweep points spread over MPI ranks (optional at build time)
  zlib1g-dev               # gzip-compressed Kineto traces (streamed through nlohmann's SAX parser)
  libjemalloc-dev          # the scalecast binary's allocator: SimGrid allocates per flow
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
