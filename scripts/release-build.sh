#!/usr/bin/env bash
# Build, package and check release binaries of agenteval-gate.
#
#   scripts/release-build.sh [--out DIR] [TARGET...]
#
# TARGET defaults to the two static Linux targets, which this script can build
# on any Linux x86_64 machine:
#   x86_64-unknown-linux-musl, aarch64-unknown-linux-musl
# (cargo-zigbuild: zig is the C cross-compiler and linker for `ring`, so no
# musl or aarch64 toolchain has to be installed). Other targets are built with
# plain cargo on their own runner (.github/workflows/release.yml). All use the
# `dist` profile of Cargo.toml (stripped, fat LTO, one codegen unit):
#   x86_64-apple-darwin, aarch64-apple-darwin (macOS), x86_64-pc-windows-msvc.
#
# For each target it writes DIR/agenteval-gate-TARGET.tar.gz (the binary,
# `agenteval-gate` or `agenteval-gate.exe`, at the top level) and
# DIR/agenteval-gate-TARGET.tar.gz.sha256, then checks the binary:
#   - Linux targets must be statically linked (`file`, and `ldd` where present);
#   - a binary this machine can run (its own architecture, or aarch64 through
#     qemu-aarch64 when installed) must print `agenteval-gate VERSION`.
# It ends with a table of sizes. DIR defaults to dist/.
#
# Needs: rustup (targets are added as needed); for the musl targets
# cargo-zigbuild and zig (`pip install cargo-zigbuild`, which brings
# `ziglang`; or `cargo install cargo-zigbuild`).
set -euo pipefail
cd "$(dirname "$0")/.."

out=dist
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "error: unknown option \`$1\` (see --help)" >&2; exit 64 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
if [ -z "$version" ]; then
  echo "error: no \`version = \"…\"\` line in Cargo.toml" >&2
  exit 1
fi

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

size_of() { wc -c < "$1" | tr -d ' '; }

human() {
  awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'
}

# Can this machine execute a binary of TARGET? Prints the runner prefix
# (empty for native) and succeeds, or fails.
runner_for() {
  local target=$1 host
  host=$(uname -m)
  case "$target" in
    x86_64-unknown-linux-*) [ "$(uname -s)" = Linux ] && [ "$host" = x86_64 ] ;;
    aarch64-unknown-linux-*)
      if [ "$(uname -s)" = Linux ] && { [ "$host" = aarch64 ] || [ "$host" = arm64 ]; }; then
        return 0
      fi
      command -v qemu-aarch64 >/dev/null 2>&1 && echo qemu-aarch64
      ;;
    x86_64-apple-darwin) [ "$(uname -s)" = Darwin ] ;;  # Rosetta runs x86_64 on arm64
    aarch64-apple-darwin) [ "$(uname -s)" = Darwin ] && [ "$host" = arm64 ] ;;
    *-windows-*) case "$(uname -s)" in MINGW*|MSYS*|CYGWIN*) true ;; *) false ;; esac ;;
    *) false ;;
  esac
}

mkdir -p "$out"
failed=0
rows=()
for target in "${targets[@]}"; do
  echo "::group::build $target"
  if command -v rustup >/dev/null 2>&1; then
    rustup target add "$target" >&2
  fi
  case "$target" in
    *-linux-musl)
      if ! cargo zigbuild --help >/dev/null 2>&1; then
        echo "error: \`cargo zigbuild\` is not installed (pip install cargo-zigbuild)" >&2
        exit 1
      fi
      cargo zigbuild --profile dist --locked --target "$target"
      ;;
    *) cargo build --profile dist --locked --target "$target" ;;
  esac
  echo "::endgroup::"

  exe=agenteval-gate
  case "$target" in *-windows-*) exe=agenteval-gate.exe ;; esac
  bin="${CARGO_TARGET_DIR:-target}/$target/dist/$exe"
  asset="agenteval-gate-$target.tar.gz"
  problems=()

  # Static linking (Linux): `file` says so, and `ldd` finds no libraries.
  case "$target" in
    *-linux-*)
      kind=$(file -b "$bin")
      case "$kind" in
        *"statically linked"*|*"static-pie linked"*) ;;
        *) problems+=("not statically linked: $kind") ;;
      esac
      case "$kind" in
        *", stripped"*) ;;
        *) problems+=("not stripped: $kind") ;;
      esac
      if command -v ldd >/dev/null 2>&1 && [ "$target" = "$(uname -m)-unknown-linux-musl" ]; then
        # glibc's ldd exits 1 with "not a dynamic executable" on a static binary.
        libs=$(ldd "$bin" 2>&1 || true)
        case "$libs" in
          *"not a dynamic executable"*|*"statically linked"*) ;;
          *) problems+=("ldd lists libraries: $libs") ;;
        esac
      fi
      ;;
  esac

  # It runs and knows its version.
  ran=skipped
  if prefix=$(runner_for "$target"); then
    got=$(${prefix:+"$prefix"} "$bin" --version 2>&1 || true)
    if [ "$got" = "agenteval-gate $version" ]; then
      ran="ok${prefix:+ ($prefix)}"
    else
      problems+=("\`$exe --version\` printed \`$got\`, expected \`agenteval-gate $version\`")
      ran=failed
    fi
  fi

  staging=$(mktemp -d)
  cp "$bin" "$staging/$exe"
  # Reproducible where GNU tar is available (Linux runners); bsdtar elsewhere.
  if tar --version 2>/dev/null | grep -q 'GNU tar'; then
    tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
      -C "$staging" -cf - "$exe" | gzip -9n > "$out/$asset"
  else
    tar -C "$staging" -cf - "$exe" | gzip -9n > "$out/$asset"
  fi
  rm -rf "$staging"
  (cd "$out" && sha256 "$asset" > "$asset.sha256")

  for p in "${problems[@]+"${problems[@]}"}"; do
    echo "error: $target: $p" >&2
    failed=1
  done
  bytes=$(size_of "$bin")
  packed=$(size_of "$out/$asset")
  rows+=("$(printf '%-28s %10s %12s %10s %12s  %s' "$target" "$bytes" "($(human "$bytes"))" "$packed" "($(human "$packed"))" "$ran")")
done

echo
printf '%-28s %23s %23s  %s\n' target binary tar.gz "--version"
for row in "${rows[@]}"; do echo "$row"; done
echo
echo "assets in $out/:"
(cd "$out" && ls -1 agenteval-gate-*)
exit "$failed"
