#!/usr/bin/env bash
# The report's first screen as a PNG, from headless Chromium (as docs/images shows it):
#   bash scripts/report_screenshot.sh reproduce/report/report.html docs/images/report-first-screen.png
set -euo pipefail
page=$(realpath "$1"); out=$(realpath -m "$2")
profile=$(mktemp -d); trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size=1100,1150 \
    --screenshot="$out" "file://$page" 2>/dev/null
echo "$out"
