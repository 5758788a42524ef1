#!/usr/bin/env bash
# Configures and builds tilewave into build/ (Ninja, Release, ccache when present).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TILEWAVE_BUILD_DIR:-$root/build}"
jobs="${TILEWAVE_JOBS:-$(nproc)}"
echo "build: configuring $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "build: compiling with $jobs jobs"
cmake --build "$build" -j "$jobs"
