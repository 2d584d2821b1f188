#!/usr/bin/env bash
# Draws the web map's app icons (Sources/OnTheMapApp/Web/Map/Assets/icon-192.png and icon-512.png)
# from icon.svg beside them, with headless Chromium (Debian's `chromium`): the SVG is the source,
# the PNGs are what the web app manifest names for launchers that take no SVG.
#
# Usage: scripts/build-icons.sh
set -euo pipefail
cd "$(dirname "$0")/.."
assets=Sources/OnTheMapApp/Web/Map/Assets
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$assets/icon.svg" "$work/icon.svg"
for size in 192 512; do
  printf '<!doctype html><style>html,body{margin:0}img{display:block;width:%spx;height:%spx}</style><img src="icon.svg">' \
    "$size" "$size" > "$work/page.html"
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
    --window-size="$size,$size" --screenshot="$work/icon-$size.png" "file://$work/page.html" >/dev/null 2>&1
  cp "$work/icon-$size.png" "$assets/icon-$size.png"
  echo "$assets/icon-$size.png: $(stat -c %s "$assets/icon-$size.png") bytes"
done
