#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (its own CMake project) with clang-22
# (-fsanitize=fuzzer,address,undefined, halt on the first report) into build-fuzz/ and runs
# each for SECONDS (default 20) from its seed corpus in tests/fuzz/<target>/. Exit status
# non-zero on the first finding; the crashing input is left in build-fuzz/. Needs clang-22
# and libclang-rt-22-dev (scripts/deps.sh).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   (targets: layout_expression npy code_object executor)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(layout_expression npy code_object executor)
out="${TILEWAVE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
mkdir -p "$out"
if [ ! -f "$out/build.ninja" ]; then
  cmake -S "$root/tests/fuzz" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="${CXX_FUZZ:-clang++-22}" > "$out/configure.log" 2>&1 ||
    { cat "$out/configure.log"; exit 1; }
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
echo "fuzz: building ${build_targets[*]}"
cmake --build "$out" -j "${TILEWAVE_JOBS:-2}" --target "${build_targets[@]}" > "$out/build.log" 2>&1 ||
  { tail -50 "$out/build.log"; exit 1; }
for t in "${targets[@]}"; do
  corpus="$out/corpus_$t" # what the fuzzer adds; the seeds stay in tests/fuzz/<target>
  mkdir -p "$corpus"
  echo "fuzz: running $t for $seconds s"
  extra=()
  [ "$t" = executor ] && extra=(-max_len=1024 -len_control=0) # whole bodies of 256 dwords
  status=0
  (cd "$out" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 \
     TW_FUZZ_EXECUTOR_TEMPLATE="$out/fuzz_body.gfx1201.O3.hsaco" \
     "./fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -print_final_stats=1 "${extra[@]}" "$corpus" "$root/tests/fuzz/$t") > "$out/fuzz_$t.log" 2>&1 || status=$?
  grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Test unit written" "$out/fuzz_$t.log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t found a problem (exit $status); see $out/fuzz_$t.log"
    exit 1
  fi
done
echo "fuzz: no finding"
