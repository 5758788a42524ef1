#!/usr/bin/env bash
# Fresh Debian 12 -> the main example on the default device: installs deps, builds only what
# the example needs (the libraries, the `tilewave` tool and the example; not the test suite),
# runs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TILEWAVE_BUILD_DIR:-$root/build}"
example="${1:-06_gemm}"
if [ ! -f "$root/examples/$example.cpp" ]; then
  echo "example: no examples/$example.cpp (one of: $(cd "$root/examples" && ls [0-9][0-9]_*.cpp | sed 's/\.cpp$//' | tr '\n' ' '))" >&2
  exit 2
fi
"$root/scripts/deps.sh"
"$root/scripts/build.sh" tilewave "example_$example"
echo "example: running $example"
"$build/examples/example_$example"
