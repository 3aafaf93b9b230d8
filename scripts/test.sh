#!/usr/bin/env bash
# Build and run the whole test suite (C unit tests, data-driven tests,
# Python harness tests with Triton's CPU interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja >/dev/null
ninja -C build
ctest --test-dir build --output-on-failure -j2 "$@"
