#!/usr/bin/env bash
# The house rules that can be checked mechanically (part of scripts/test.sh):
#   * every unsafe block and impl has a SAFETY comment, every SeqCst a reason (check-safety.py);
#   * no Rust file in src/, policy/ or bindings/ is over 700 lines (one concept per file);
#   * no "session N" in the product docs, scripts or code comments (history lives in git and in
#     dated RESULTS sections);
#   * no import circle in src/ (tests/layers.rs, run by the core's cargo test, not here);
#   * README.md at most 1,200 words and bindings/openjdk/RESULTS.md (the current page; dated
#     sections go to RESULTS-history.md) at most 400 lines.
set -euo pipefail
cd "$(dirname "$0")/.."
pass=0 fail=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

if python3 scripts/check-safety.py --self-test >/dev/null && python3 scripts/check-safety.py >/tmp/check-safety.$$ 2>&1; then
  ok "$(tail -1 /tmp/check-safety.$$)"
else
  cat /tmp/check-safety.$$; bad "unsafe code or SeqCst without a reason"
fi
rm -f /tmp/check-safety.$$

long=$(find src policy bindings -name '*.rs' -not -path '*/target/*' -not -path '*/.build/*' -print0 \
  | xargs -0 wc -l | awk '$2 != "total" && $1 > 700 {print $2 " (" $1 " lines)"}')
if [ -z "$long" ]; then ok "no Rust file in src/, policy/, bindings/ over 700 lines"; else bad "files over 700 lines: $long"; fi

diary=$(grep -rniE 'sessions? ?-?[0-9]' --include='*.md' --include='*.rs' --include='*.sh' --include='*.py' \
  --include='*.yml' --include='*.yaml' --exclude-dir=.build --exclude-dir=target --exclude-dir=.git . \
  | grep -v '^./scripts/check-house.sh:' || true)
if [ -z "$diary" ]; then ok "no \"session N\" in docs, scripts or code"; else echo "$diary"; bad "\"session N\" found"; fi

words=$(wc -w < README.md)
if [ "$words" -le 1200 ]; then ok "README.md $words words (at most 1200)"; else bad "README.md has $words words (at most 1200: link the details)"; fi
lines=$(wc -l < bindings/openjdk/RESULTS.md)
if [ "$lines" -le 400 ]; then ok "bindings/openjdk/RESULTS.md $lines lines (at most 400)"
else bad "bindings/openjdk/RESULTS.md has $lines lines (at most 400: move dated sections to RESULTS-history.md)"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
