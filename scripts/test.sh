#!/usr/bin/env bash
# Fresh Debian 12 -> every test: installs deps, builds, runs ctest (its summary is CI's
# verdict), then the sanitized subset: the parsers of outside data and their unit tests built
# with ASan + UBSan into build-sanitize/ (tests/sanitized.cmake), halting on the first report.
#   scripts/test.sh                   everything (TILEWAVE_SANITIZE=0 skips the sanitized part)
#   scripts/test.sh CTEST ARGS...     the main build's ctest with those arguments only
#   scripts/test.sh --sanitize        only the sanitized subset
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TILEWAVE_BUILD_DIR:-$root/build}"
jobs="${TILEWAVE_JOBS:-$(nproc)}"
only_sanitized=0
if [ "${1:-}" = "--sanitize" ]; then
  only_sanitized=1
  shift
fi

run_sanitized() {
  local san="${TILEWAVE_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
  local start=$SECONDS
  echo "test: building the sanitized subset (ASan + UBSan) in $san"
  cmake -S "$root" -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTILEWAVE_SANITIZE=ON \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" >/dev/null
  cmake --build "$san" -j "$jobs" --target test_sanitized
  echo "test: running the sanitized subset"
  (cd "$san" &&
     ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0 \
     UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     ctest --output-on-failure -j "$jobs" --timeout 600 -L sanitized)
  echo "test: sanitized subset done in $((SECONDS - start)) s"
}

"$root/scripts/deps.sh"
if [ "$only_sanitized" = 1 ]; then
  run_sanitized
  exit 0
fi
"$root/scripts/build.sh"
echo "test: running ctest"
status=0
(cd "$build" && ctest --output-on-failure -j "$jobs" --timeout 1200 "$@") || status=$?
if [ $# -eq 0 ] && [ "${TILEWAVE_SANITIZE:-1}" != 0 ]; then
  run_sanitized || status=1
fi
exit "$status"
