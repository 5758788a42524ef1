#!/usr/bin/env bash
# Fresh Debian 12 -> every test: installs deps, builds, runs ctest (its summary is CI's verdict).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TILEWAVE_BUILD_DIR:-$root/build}"
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
echo "test: running ctest"
cd "$build"
ctest --output-on-failure -j "${TILEWAVE_JOBS:-$(nproc)}" --timeout 1200 "$@"
