#!/usr/bin/env bash
# Vendors the page's font, DejaVu Sans Mono (dejavu-fonts-ttf, from the npm registry), into static/fonts/, which
# Streamlit serves with the page (server.enableStaticServing): the player's graph is drawn in it on every machine, and
# exports/picture.py embeds a subset of it in each exported SVG. Its regular and bold faces only: the graph uses no others.
# Usage: scripts/update-fonts.sh [version]   (default: the pinned one below)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-2.37.3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "dejavu-fonts-ttf@$version" >/dev/null && tar xzf ./*.tgz)
rm -rf static/fonts && mkdir -p static/fonts
cp "$work"/package/ttf/DejaVuSansMono{,-Bold}.ttf "$work/package/LICENSE" "$work/package/package.json" static/fonts/
echo "dejavu-fonts-ttf $version (npm), its ttf/DejaVuSansMono.ttf and ttf/DejaVuSansMono-Bold.ttf" > static/fonts/VERSION
echo "static/fonts: dejavu-fonts-ttf $version"
