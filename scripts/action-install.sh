#!/usr/bin/env bash
# The `install` step of action.yml: put the release binary of this action's
# own version on the runner, verified and cached, or say that the source
# build must run. Run by the action as `bash "$GITHUB_ACTION_PATH/scripts/action-install.sh"`.
#
# Which binary (input `version`, env INPUT_VERSION):
#   ''      (default) the release `v<version in the action's Cargo.toml>` of the
#           repository the action was loaded from, when the action's ref is a
#           version tag (`@v0`, `@v0.2.0`) or the release commit's SHA. A
#           branch ref (`@main`), a SHA that is not the release commit, or a
#           local action (`uses: ./`) builds from source, because the code may
#           differ from the release. If the release or its asset cannot be
#           downloaded (no release, no asset for this platform, no network),
#           the source build runs after a warning.
#   source  always build from source.
#   vX.Y.Z  that release of the action's repository; any failure is an error.
# A checksum mismatch, or a release without a sum for the asset, is always
# an error: never a silent fallback.
#
# Where the action comes from: `github.action_repository`/`github.action_ref`
# (ACTION_REPOSITORY/ACTION_REF) when the runner sets them, else the layout
# of GITHUB_ACTION_PATH, `<runner>/_actions/<owner>/<repo>/<ref>[/<path>]`
# (both expressions are empty inside composite actions on current runners).
#
# Downloads: $GITHUB_SERVER_URL/<owner>/<repo>/releases/download/<tag>/
#   agenteval-gate-<target>.tar.gz, SHA256SUMS, and COMMIT (SHA refs only).
# Tool cache: $RUNNER_TOOL_CACHE/agenteval-gate/<version>/<target>/, complete
# when `<target>.complete` exists (the layout of @actions/tool-cache).
#
# Outputs (GITHUB_OUTPUT): `bin` (absolute path; empty: build from source),
# `source` (tool-cache | release | build), `version` (the tag, when known).
set -euo pipefail

say() { printf '%s\n' "$*"; }
notice() { say "::notice title=agenteval-gate::$*"; }
warning() { say "::warning title=agenteval-gate::$*"; }
fail() {
  say "::error title=agenteval-gate::$1"
  exit "${2:-1}"
}
output() { printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; }

build_from_source() {
  output source build
  exit 0
}

version_input=${INPUT_VERSION:-}
action_path=${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set (run this inside the action)}
action_path=${action_path//\\//} # Windows runners use backslashes
server=${GITHUB_SERVER_URL:-https://github.com}
server=${server%/}

# --- what to install -------------------------------------------------------
explicit=false
case "$version_input" in
  source)
    say "agenteval-gate: \`version: source\`: building from source"
    build_from_source
    ;;
  '') ;;
  *)
    if ! [[ "$version_input" =~ ^v?[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
      fail "input \`version\` is \`$version_input\`; expected empty (this action's release), \`source\`, or a release tag such as \`v0.2.0\`" 64
    fi
    explicit=true
    ;;
esac

# The repository and ref the action was loaded from.
repo=${ACTION_REPOSITORY:-}
ref=${ACTION_REF:-}
case "$action_path" in
  */_actions/*/*/*)
    rest=${action_path##*/_actions/}
    IFS=/ read -r owner name path_ref _ <<< "$rest"
    if [ -z "$repo" ]; then repo="$owner/$name"; fi
    if [ -z "$ref" ]; then ref=$path_ref; fi
    ;;
esac
if [ -z "$repo" ]; then
  if $explicit; then
    fail "\`version: $version_input\` needs to know which repository publishes the release, but this is a local action (\`uses: ./\`); use \`uses: OWNER/agenteval-gate@$version_input\`, or \`version: source\`" 64
  fi
  say "agenteval-gate: a local action (\`uses: ./\`) has no release: building from source"
  build_from_source
fi
if ! [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
  fail "cannot use the action repository \`$repo\` in a download URL"
fi

if $explicit; then
  tag="v${version_input#v}"
  check_commit=
else
  own=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_path/Cargo.toml" 2>/dev/null | head -n 1)
  if [ -z "$own" ]; then
    warning "no version in \`$action_path/Cargo.toml\`; building from source"
    build_from_source
  fi
  tag="v$own"
  check_commit=
  if [[ "$ref" =~ ^v[0-9]+(\.[0-9]+){0,2}(-[0-9A-Za-z.-]+)?$ ]]; then
    : # a version tag: the release of the version it carries
  elif [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then
    check_commit=$ref
  else
    notice "\`$repo@$ref\` is not a release tag or a release commit, so its code may differ from release $tag: building from source. Pin \`@$tag\` (or its commit SHA) to install the release binary in seconds."
    build_from_source
  fi
fi
output version "$tag"

# --- which asset -----------------------------------------------------------
exe=agenteval-gate
case "${RUNNER_OS:-}-${RUNNER_ARCH:-}" in
  Linux-X64) target=x86_64-unknown-linux-musl ;;
  Linux-ARM64) target=aarch64-unknown-linux-musl ;;
  macOS-X64) target=x86_64-apple-darwin ;;
  macOS-ARM64) target=aarch64-apple-darwin ;;
  Windows-X64) target=x86_64-pc-windows-msvc; exe=agenteval-gate.exe ;;
  *) target= ;;
esac
if [ -z "$target" ]; then
  if $explicit; then
    fail "release $tag has no binary for ${RUNNER_OS:-?}-${RUNNER_ARCH:-?}; use \`version: source\`"
  fi
  warning "no release binary for ${RUNNER_OS:-?}-${RUNNER_ARCH:-?}; building from source"
  build_from_source
fi
asset="agenteval-gate-$target.tar.gz"

# --- the tool cache ---------------------------------------------------------
cache_root=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:?RUNNER_TEMP is not set}/tool-cache}
cache_dir="$cache_root/agenteval-gate/${tag#v}/$target"
base="$server/$repo/releases/download/$tag"
work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/agenteval-install.XXXXXX")
trap 'rm -rf "$work"' EXIT

# fetch NAME: download $base/NAME into $work/NAME; prints the HTTP status
# (000 when no answer came).
fetch() {
  curl -sSL --retry 3 --retry-connrefused --connect-timeout 10 --max-time 300 \
    -o "$work/$1" -w '%{http_code}' "$base/$1" 2>"$work/$1.err" || true
}

# Not downloadable: a warning and the source build by default, an error for
# an explicit version.
unavailable() {
  if $explicit; then fail "$1"; fi
  warning "$1; building from source"
  build_from_source
}

# A SHA ref: only the release's own commit gets the release binary. The
# commit is remembered in the tool cache, so a warm run makes no request.
released=
if [ -n "$check_commit" ]; then
  if [ -f "$cache_dir/COMMIT" ]; then released=$(head -c 64 "$cache_dir/COMMIT"); fi
  if [ "$released" != "$check_commit" ]; then
    status=$(fetch COMMIT)
    if [ "$status" != 200 ]; then
      unavailable "cannot download $base/COMMIT (HTTP $status$(head -c 200 "$work/COMMIT.err" | tr '\n' ' '))"
    fi
    released=$(head -c 64 "$work/COMMIT" | tr -d '[:space:]')
  fi
  if [ "$released" != "$check_commit" ]; then
    notice "\`$repo@$check_commit\` is not the commit of release $tag ($released): building from source. Pin \`@$released\` or \`@$tag\` to install the release binary in seconds."
    build_from_source
  fi
fi

if [ -f "$cache_dir.complete" ] && [ -x "$cache_dir/$exe" ]; then
  say "agenteval-gate $tag ($target) from the tool cache"
  output source tool-cache
  output bin "$cache_dir/$exe"
  exit 0
fi

# --- download --------------------------------------------------------------
status=$(fetch "$asset")
if [ "$status" != 200 ]; then
  unavailable "cannot download $base/$asset (HTTP $status$(head -c 200 "$work/$asset.err" | tr '\n' ' '))"
fi
status=$(fetch SHA256SUMS)
if [ "$status" != 200 ]; then
  fail "cannot verify $asset: $base/SHA256SUMS gave HTTP $status; refusing an unverified binary"
fi
expected=$(awk -v f="$asset" '($2 == f || $2 == "*" f) { print $1; exit }' "$work/SHA256SUMS")
if ! [[ "$expected" =~ ^[0-9a-fA-F]{64}$ ]]; then
  fail "cannot verify $asset: release $tag's SHA256SUMS has no sum for it; refusing an unverified binary"
fi
if command -v sha256sum >/dev/null 2>&1; then
  actual=$(sha256sum "$work/$asset" | cut -d ' ' -f 1)
else
  actual=$(shasum -a 256 "$work/$asset" | cut -d ' ' -f 1)
fi
if [ "$(tr 'A-F' 'a-f' <<< "$expected")" != "$actual" ]; then
  fail "checksum mismatch for $base/$asset: SHA256SUMS says $expected, the download is $actual; the asset was changed or corrupted, so it is not installed"
fi

mkdir -p "$work/x"
if ! tar -xzf "$work/$asset" -C "$work/x" "$exe" || [ ! -f "$work/x/$exe" ]; then
  fail "$asset (checksum verified) holds no \`$exe\`"
fi
chmod +x "$work/x/$exe"
got=$("$work/x/$exe" --version 2>&1 || true)
if [ "$got" != "agenteval-gate ${tag#v}" ]; then
  fail "the binary of release $tag printed \`$got\` for \`--version\`, expected \`agenteval-gate ${tag#v}\`"
fi

rm -rf "$cache_dir" "$cache_dir.complete"
mkdir -p "$cache_dir"
mv "$work/x/$exe" "$cache_dir/$exe"
if [ -n "$released" ]; then printf '%s\n' "$released" > "$cache_dir/COMMIT"; fi
touch "$cache_dir.complete"
say "agenteval-gate $tag ($target) installed from $base/$asset (sha256 $actual)"
output source release
output bin "$cache_dir/$exe"
