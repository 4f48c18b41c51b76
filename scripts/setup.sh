#!/usr/bin/env bash
# Installs what the project needs on a fresh machine of its kind (Debian with Rust, Python,
# a JDK): nothing beyond the toolchains for the core; Python packages for the experiments.
# Idempotent and quiet when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo is required (rustup)"; exit 1; }
if [ -f experiments/requirements.txt ]; then
  python3 -m pip install -q -r experiments/requirements.txt 2>&1 | grep -v "already satisfied" || true
fi
