#!/usr/bin/env bash
# Vendors Graphviz compiled to WebAssembly (@hpcc-js/wasm-graphviz, from the npm registry) into static/graphviz/,
# which Streamlit serves with the page (server.enableStaticServing): the player lays a graph out with it when the
# server has no dot. Usage: scripts/update-graphviz.sh [version]   (default: the pinned one below)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-1.29.2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@hpcc-js/wasm-graphviz@$version" >/dev/null && tar xzf ./*.tgz)
rm -rf static/graphviz && mkdir -p static/graphviz
cp "$work/package/dist/index.js" "$work/package/LICENSE" "$work/package/package.json" static/graphviz/
echo "@hpcc-js/wasm-graphviz $version (npm), its dist/index.js with the WebAssembly inlined" > static/graphviz/VERSION
echo "static/graphviz: @hpcc-js/wasm-graphviz $version"
