#!/usr/bin/env bash
# Fresh Debian 12 -> the main example on the default device: installs deps, builds, runs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TILEWAVE_BUILD_DIR:-$root/build}"
example="${1:-06_gemm}"
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
echo "example: running $example"
"$build/examples/example_$example"
