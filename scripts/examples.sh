#!/usr/bin/env bash
# Regenerate, check and validate the bundled example suites (suites/*).
#
#   scripts/examples.sh regen     rewrite traces, evidence and cases of every suite
#   scripts/examples.sh check     regenerate in memory and compare with the committed files
#   scripts/examples.sh twice     regenerate two fresh copies and `diff -r` them with each other
#                                 and with the committed suites (determinism, byte for byte)
#   scripts/examples.sh validate  `lint --deny-warnings`, then `run --deterministic` on each suite
#
# airline-tau needs the tau-bench episodes: set TAU_SOURCE to the subset or to
# tau-bench's historical_trajectories/gpt-4o-airline.json (see
# suites/airline-tau/SOURCE.md); the default is the subset's path on the
# project's build machine.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
tau_args=()
if [[ -n "${TAU_SOURCE:-}" ]]; then
  tau_args=(--source "$TAU_SOURCE")
fi

generators() {
  # $1: suites directory; remaining args: extra flags for every generator
  local dir=$1
  shift
  "$PYTHON" "$dir/support-bot/record.py" "$@"
  "$PYTHON" "$dir/code-review/generate.py" "$@"
  "$PYTHON" "$dir/airline-tau/split_episodes.py" "${tau_args[@]}" "$@"
}

case "${1:-}" in
  regen)
    generators suites
    ;;
  check)
    generators suites --check
    ;;
  twice)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for copy in a b; do
      mkdir -p "$tmp/$copy"
      cp -R suites "$tmp/$copy/"
      generators "$tmp/$copy/suites" >/dev/null
    done
    diff -r "$tmp/a/suites" "$tmp/b/suites"
    diff -r -x __pycache__ "$tmp/a/suites" suites
    echo "two fresh regenerations are byte-identical to each other and to suites/"
    ;;
  validate)
    cargo run --quiet -- lint --deny-warnings
    for suite in suites/*/; do
      name=$(basename "$suite")
      cargo run --quiet -- run --suite "$name" --deterministic
    done
    ;;
  *)
    sed -n '2,13p' "$0" >&2
    exit 64
    ;;
esac
