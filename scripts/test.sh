#!/usr/bin/env bash
# Fresh Debian 12 -> every test: installs deps, builds the sanitized subset (the parsers of
# outside data and their unit tests with ASan + UBSan, build-sanitize/, tests/sanitized.cmake)
# and the main build, then runs ONE ctest whose summary is CI's verdict: the main suite plus
# the test `sanitized.subset`, which runs the sanitized tests (halting on the first report).
#   scripts/test.sh                   everything (TILEWAVE_SANITIZE=0 leaves the sanitized part out)
#   scripts/test.sh CTEST ARGS...     the main build's ctest with those arguments only
#   scripts/test.sh --sanitize        only the sanitized subset
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TILEWAVE_BUILD_DIR:-$root/build}"
jobs="${TILEWAVE_JOBS:-$(nproc)}"
san="${TILEWAVE_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
only_sanitized=0
if [ "${1:-}" = "--sanitize" ]; then
  only_sanitized=1
  shift
fi

build_sanitized() {
  local start=$SECONDS
  echo "test: building the sanitized subset (ASan + UBSan) in $san"
  cmake -S "$root" -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILEWAVE_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" >/dev/null
  cmake --build "$san" -j "$jobs" --target test_sanitized
  echo "test: sanitized subset built in $((SECONDS - start)) s"
}

"$root/scripts/deps.sh"
if [ "$only_sanitized" = 1 ]; then
  build_sanitized
  cd "$san"
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    exec ctest --output-on-failure -j "$jobs" --timeout 600 -L sanitized
fi
if [ $# -eq 0 ] && [ "${TILEWAVE_SANITIZE:-1}" != 0 ]; then
  build_sanitized
  export TILEWAVE_CMAKE_ARGS="-DTILEWAVE_SANITIZED_BUILD_DIR=$san"
else
  export TILEWAVE_CMAKE_ARGS="-DTILEWAVE_SANITIZED_BUILD_DIR="
fi
"$root/scripts/build.sh"
echo "test: running ctest"
cd "$build"
exec ctest --output-on-failure -j "$jobs" --timeout 1200 "$@"
