#!/usr/bin/env bash
# Installs the Debian 12 packages tilewave needs, if any are missing. Idempotent.
set -euo pipefail
packages=(cmake ninja-build g++ ccache clang-22 llvm-22-dev lld-22 liblld-22-dev llvm-22-tools
          libzstd-dev libboost1.81-dev doctest-dev libcli11-dev nlohmann-json3-dev libfmt-dev
          libclang-rt-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} Debian packages present"
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "deps: done"
