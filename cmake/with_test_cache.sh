#!/usr/bin/env bash
# with_test_cache.sh DIR PROGRAM [ARGS...]: runs PROGRAM with TILEWAVE_CACHE_DIR=DIR unless the
# caller set TILEWAVE_CACHE_DIR (the build's test compile cache: root CMakeLists.txt).
set -euo pipefail
export TILEWAVE_CACHE_DIR="${TILEWAVE_CACHE_DIR:-$1}"
shift
exec "$@"
