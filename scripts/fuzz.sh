#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang-22 (-fsanitize=fuzzer,address,undefined,
# halt on the first report) into build-fuzz/ and runs each for SECONDS (default 20) from its
# seed corpus in tests/fuzz/<target>/. Exit status non-zero on the first finding; the crashing
# input is left in build-fuzz/. Needs clang-22 and libclang-rt-22-dev (scripts/deps.sh).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: layout_expression npy)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(layout_expression npy)
out="$root/build-fuzz"
mkdir -p "$out"
cxx="${CXX_FUZZ:-clang++-22}"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -I"$root")
sources_layout_expression=("$root/layouts/expression.cpp")
sources_npy=()
for t in "${targets[@]}"; do
  var="sources_${t}[@]"
  bin="$out/fuzz_$t"
  if [ ! -x "$bin" ] || [ -n "$(find "$root/tests/fuzz/fuzz_$t.cpp" "$root/layouts" "$root/tools/npy" -newer "$bin" -print -quit)" ]; then
    echo "fuzz: building $t"
    "$cxx" "${flags[@]}" "$root/tests/fuzz/fuzz_$t.cpp" "${!var}" -o "$bin"
  fi
  corpus="$out/corpus_$t"
  mkdir -p "$corpus"
  echo "fuzz: running $t for $seconds s"
  status=0
  (cd "$out" && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     ASAN_OPTIONS=halt_on_error=1:detect_leaks=0 \
     "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
     "$corpus" "$root/tests/fuzz/$t") > "$out/fuzz_$t.log" 2>&1 || status=$?
  grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Test unit written" "$out/fuzz_$t.log" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t found a problem (exit $status); see $out/fuzz_$t.log"
    exit 1
  fi
done
echo "fuzz: no finding"
