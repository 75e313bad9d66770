#!/usr/bin/env bash
# Time the action's install step (scripts/action-install.sh) with release
# assets served from 127.0.0.1: cold (empty tool cache: download, verify,
# extract, `--version`) and warm (tool-cache hit), RUNS times each; prints the
# medians. Uses the tarball scripts/release-build.sh wrote to dist/, or, with
# BIN=path, a tarball of that binary (served under the same asset name).
#
#   bench/action-install.sh [RUNS]   (default 7)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-7}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
asset=agenteval-gate-x86_64-unknown-linux-musl.tar.gz
work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

release="$work/srv/acme/agenteval-gate/releases/download/v$version"
mkdir -p "$release"
if [ -n "${BIN:-}" ]; then
  mkdir -p "$work/pack"
  cp "$BIN" "$work/pack/agenteval-gate"
  tar -C "$work/pack" -cf - agenteval-gate | gzip -9n > "$release/$asset"
elif [ -f "dist/$asset" ]; then
  cp "dist/$asset" "$release/"
else
  echo "error: dist/$asset is missing: run scripts/release-build.sh first (or set BIN)" >&2
  exit 1
fi
(cd "$release" && sha256sum "$asset" > SHA256SUMS)
# The action as the runner lays it out for `uses: acme/agenteval-gate@v0`.
action="$work/runner/_actions/acme/agenteval-gate/v0"
mkdir -p "$action/scripts"
cp Cargo.toml "$action/"
cp scripts/action-install.sh "$action/scripts/"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/srv" >/dev/null 2>&1 &
server_pid=$!
for _ in $(seq 50); do
  if curl -fs -o /dev/null "http://127.0.0.1:$port/"; then break; fi
  sleep 0.1
done

install() {
  env -i PATH="$PATH" HOME="$HOME" \
    INPUT_VERSION= ACTION_REPOSITORY= ACTION_REF= \
    GITHUB_ACTION_PATH="$action" GITHUB_SERVER_URL="http://127.0.0.1:$port" \
    RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work/temp" \
    RUNNER_TOOL_CACHE="$work/tool-cache" GITHUB_OUTPUT="$work/output" \
    bash "$action/scripts/action-install.sh" >/dev/null
}

mkdir -p "$work/temp"
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

cold=()
warm=()
for _ in $(seq "$runs"); do
  rm -rf "$work/tool-cache"
  start=$(date +%s%N); install; end=$(date +%s%N)
  grep -q '^source=release$' "$work/output"
  cold+=($(( (end - start) / 1000000 )))
  start=$(date +%s%N); install; end=$(date +%s%N)
  grep -q '^source=tool-cache$' "$work/output"
  warm+=($(( (end - start) / 1000000 )))
done
size=$(wc -c < "$release/$asset" | tr -d ' ')
echo "install step, $runs runs each, asset $asset ($size bytes${BIN:+, made from $BIN}) over 127.0.0.1:"
echo "  cold (download, verify, extract, --version): median $(printf '%s\n' "${cold[@]}" | median) ms  [${cold[*]}]"
echo "  warm (tool cache hit):                       median $(printf '%s\n' "${warm[@]}" | median) ms  [${warm[*]}]"
