#!/usr/bin/env bash
# Vendors the page's font, DejaVu Sans Mono (dejavu-fonts-ttf, from the npm registry), into static/fonts/, which
# Streamlit serves with the page (server.enableStaticServing): the player's graph is drawn in it on every machine, and
# exports/picture.py embeds a subset of it in each exported SVG. Its regular and bold faces only: the graph uses no others.
# Usage: scripts/update-fonts.sh [version [words' version]]   (default: the pinned ones below)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-2.37.3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "dejavu-fonts-ttf@$version" >/dev/null && tar xzf ./*.tgz)
rm -rf static/fonts && mkdir -p static/fonts
cp "$work"/package/ttf/DejaVuSansMono{,-Bold}.ttf "$work/package/LICENSE" "$work/package/package.json" static/fonts/
echo "dejavu-fonts-ttf $version (npm), its ttf/DejaVuSansMono.ttf and ttf/DejaVuSansMono-Bold.ttf" > static/fonts/VERSION
# the words' font, Source Sans 3 (Streamlit's own, @fontsource/source-sans-3): its Latin subset in the page's three
# weights, which a lesson in one file carries (exports/lesson.py), as the page has them from Streamlit
words=${2:-5.3.1}
(cd "$work" && rm -rf package && npm pack --silent "@fontsource/source-sans-3@$words" >/dev/null && tar xzf ./fontsource-*.tgz)
mkdir -p static/fonts/source-sans-3
cp "$work"/package/files/source-sans-3-latin-{400,600,700}-normal.woff2 "$work/package/LICENSE" \
  "$work/package/package.json" static/fonts/source-sans-3/
echo "@fontsource/source-sans-3 $words (npm), its files/source-sans-3-latin-{400,600,700}-normal.woff2" \
  > static/fonts/source-sans-3/VERSION
echo "static/fonts: dejavu-fonts-ttf $version, @fontsource/source-sans-3 $words"
