#!/usr/bin/env bash
# Compares the timing model's figures of two builds bit for bit: every figure of every
# modeled report (TimingReport::exact(): doubles as hexadecimal floats) of bench_gemm (the
# 8 GEMM kernels x 2 backends x 5 shapes) and bench_timing_calibration (13 attention / WMMA
# rows on the shipped machine). For changes that must not move a modeled figure (the
# model's own cost); host timings are not compared.
#   scripts/check_timing_exact.sh BASE_BUILD_DIR NEW_BUILD_DIR [OUT_DIR]
# (OUT_DIR keeps both builds' outputs; the base's are reused when already there.)
# Each build dir must hold bench/bench_gemm and bench/timing/bench_timing_calibration built
# with --exact support. Exit 0 when identical, 1 with the first differences otherwise.
# NEW_FLAGS (environment, optional): extra options of the new build's two benches, e.g.
# NEW_FLAGS=--fast-forward to compare the WGP simulation's fast-forward against a base
# without it.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 BASE_BUILD_DIR NEW_BUILD_DIR [OUT_DIR]" >&2
  exit 2
fi
base="$1"
new="$2"
out="${3:-$(mktemp -d)}"
mkdir -p "$out"
for b in "$base" "$new"; do
  for exe in bench/bench_gemm bench/timing/bench_timing_calibration; do
    if [ ! -x "$b/$exe" ]; then
      echo "check_timing_exact: $b/$exe is missing (build the targets bench_gemm and bench_timing_calibration)" >&2
      exit 2
    fi
  done
done
run() { # build-dir name [extra options]
  # bench_gemm's cost lines are host timings: not compared.
  # shellcheck disable=SC2086
  "$1/bench/bench_gemm" --exact ${3:-} | grep -v 'model cost' >"$out/$2.gemm.txt"
  # shellcheck disable=SC2086
  "$1/bench/timing/bench_timing_calibration" --exact ${3:-} >"$out/$2.calibration.txt"
}
# The base build's outputs are kept in OUT_DIR: a second check against the same base reuses
# them (delete OUT_DIR to re-run the base).
if [ -s "$out/base.gemm.txt" ] && [ -s "$out/base.calibration.txt" ]; then
  echo "check_timing_exact: reusing $out/base.*.txt"
else
  run "$base" base
fi
run "$new" new "${NEW_FLAGS:-}"
status=0
for f in gemm calibration; do
  lines=$(wc -l <"$out/base.$f.txt")
  if diff -q "$out/base.$f.txt" "$out/new.$f.txt" >/dev/null; then
    echo "check_timing_exact: $f: identical ($lines lines)"
  else
    echo "check_timing_exact: $f: DIFFERENT" >&2
    diff "$out/base.$f.txt" "$out/new.$f.txt" | head -20 >&2
    status=1
  fi
done
exit $status
