#!/usr/bin/env bash
# Configures and builds tilewave into build/ (Ninja, Release, ccache when present).
#   scripts/build.sh [TARGET...]   builds only the given targets (and what they need); all by default
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TILEWAVE_BUILD_DIR:-$root/build}"
jobs="${TILEWAVE_JOBS:-$(nproc)}"
echo "build: configuring $build"
# TILEWAVE_CMAKE_ARGS: extra configure arguments (scripts/test.sh names the sanitized tree).
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${TILEWAVE_CMAKE_ARGS:-} >/dev/null
targets=()
for t in "$@"; do
  targets+=(--target "$t")
done
echo "build: compiling ${*:-everything} with $jobs jobs"
cmake --build "$build" -j "$jobs" "${targets[@]}"
