#!/usr/bin/env bash
# Install what tritondx needs on Debian 12 and build it into build/.
# Safe to run again. Python packages are pinned to the GPU machine's versions.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
# chromium + chromium-driver: the headless browser test of the HTML reports
pkgs="build-essential cmake ninja-build pkg-config libjansson-dev libcmocka-dev libcurl4-openssl-dev clang libclang-rt-14-dev clang-tidy patch valgrind cppcheck chromium chromium-driver"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
if ! python3 -c 'import triton, torch, pytest, numpy; assert numpy.__version__ == "2.3.5"; assert triton.__version__ == "3.6.0"; assert torch.__version__.startswith("2.11.0")' 2>/dev/null; then
  python3 -m pip install -q --disable-pip-version-check -r python/requirements.txt
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build >/dev/null
echo "tritondx built: build/tritondx"
