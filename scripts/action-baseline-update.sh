#!/usr/bin/env bash
# `command: baseline-update` of action.yml: record a new baseline on the
# baselines branch, for a push to the default branch.
#
# The baseline lives on its own branch (INPUT_BASELINE_BRANCH, e.g.
# `agenteval-baselines`, holding only `baselines/`), so a protected default
# branch never needs a bot push, and pull requests read it with
# `baseline-branch:` (scripts/action-baselines.sh).
#
#  1. Evaluate once: `agenteval-gate run --out-dir` (or take REPORT_PATH, a
#     saved run report, e.g. the merge of a sharded run).
#  2. Up to MAX_ATTEMPTS times: fetch the branch tip (or start the branch when
#     it does not exist), `baseline update --from-report` into its
#     `baselines/` (the report replaced, one history line appended), commit,
#     push. A rejected push (another update landed first, a push race) starts
#     over from the new tip, so its history line is kept and ours is appended
#     after it; nothing is force-pushed.
#
# Env: AGENTEVAL_BIN, INPUT_BASELINE, INPUT_BASELINE_BRANCH, INPUT_SUITES,
# INPUT_EXTRA_ARGS (more `run` arguments), REPORT_PATH (optional),
# GITHUB_TOKEN (push auth, for this process only), GITHUB_SHA, GITHUB_REF,
# RUNNER_TEMP, GITHUB_OUTPUT; AGENTEVAL_PUSH_ATTEMPTS (default 5).
# Output: `commit` (the pushed commit; empty when the baseline was unchanged).
set -euo pipefail
set -f # suite names and extra args are words, never globs

say() { printf '%s\n' "$*"; }
fail() {
  say "::error title=agenteval-gate::$1"
  exit "${2:-1}"
}

bin=${AGENTEVAL_BIN:?}
name=${INPUT_BASELINE:-main}
branch=${INPUT_BASELINE_BRANCH:-}
max_attempts=${AGENTEVAL_PUSH_ATTEMPTS:-5}
if [ -z "$branch" ]; then
  fail "\`command: baseline-update\` needs \`baseline-branch\` (e.g. \`agenteval-baselines\`): the branch the baseline is committed to" 64
fi
if ! git check-ref-format --branch "$branch" >/dev/null 2>&1 || [[ "$branch" == -* ]]; then
  fail "input \`baseline-branch\` is \`$branch\`, which is not a branch name" 64
fi
if ! [[ "$max_attempts" =~ ^[1-9][0-9]?$ ]]; then
  fail "AGENTEVAL_PUSH_ATTEMPTS is \`$max_attempts\`; expected 1 to 99" 64
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  fail "\`command: baseline-update\` needs a git checkout of the repository (actions/checkout)"
fi
origin=$(git remote get-url origin) || fail "the checkout has no \`origin\` remote to push the baseline to"

work=$(mktemp -d "${RUNNER_TEMP:-/tmp}/agenteval-baseline.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 1. The run reports.
reports=()
if [ -n "${REPORT_PATH:-}" ]; then
  reports=("$REPORT_PATH")
else
  args=(run --out-dir "$work/reports" --fail-on never)
  IFS=$' \t\n,' read -r -d '' -a suites <<< "${INPUT_SUITES:-}" || true
  for suite in "${suites[@]+"${suites[@]}"}"; do
    if [ -n "$suite" ]; then args+=(--suite "$suite"); fi
  done
  IFS=$' \t\n' read -r -d '' -a extra <<< "${INPUT_EXTRA_ARGS:-}" || true
  "$bin" "${args[@]}" "${extra[@]+"${extra[@]}"}"
  set +f
  for report in "$work"/reports/*.json; do
    if [ -f "$report" ]; then reports+=("$report"); fi
  done
  set -f
  if [ ${#reports[@]} -eq 0 ]; then
    fail "\`agenteval-gate run\` wrote no report: no suite to record"
  fi
fi
from=()
for report in "${reports[@]}"; do from+=(--from-report "$report"); done

# 2. Commit on the branch tip and push, retrying on a race.
wt="$work/branch"
git init -q "$wt"
git -C "$wt" remote add origin "$origin"
git -C "$wt" config user.name 'github-actions[bot]'
git -C "$wt" config user.email '41898282+github-actions[bot]@users.noreply.github.com'
if [ -n "${GITHUB_TOKEN:-}" ]; then
  basic=$(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 | tr -d '\n')
  export GIT_CONFIG_COUNT=1
  export GIT_CONFIG_KEY_0=http.extraHeader
  export GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $basic"
  unset GITHUB_TOKEN basic
fi

sha=${GITHUB_SHA:-$(git rev-parse HEAD)}
for attempt in $(seq 1 "$max_attempts"); do
  set +e
  git -C "$wt" ls-remote --exit-code --heads origin "refs/heads/$branch" >/dev/null
  found=$?
  set -e
  case "$found" in
    0)
      git -C "$wt" fetch -q --no-tags --depth=1 origin "+refs/heads/$branch:refs/remotes/origin/$branch"
      git -C "$wt" checkout -q -f -B agenteval-update "refs/remotes/origin/$branch"
      ;;
    2)
      say "agenteval-gate: branch \`$branch\` does not exist yet; starting it"
      git -C "$wt" checkout -q -f --orphan "agenteval-new-$attempt"
      git -C "$wt" rm -rqf --cached --ignore-unmatch . >/dev/null
      ;;
    *) fail "cannot list the branches of \`origin\` (git ls-remote exit $found)" ;;
  esac
  git -C "$wt" clean -qfdx

  "$bin" baseline update --name "$name" --baselines-dir "$wt/baselines" "${from[@]}" \
    --git-sha "$sha" --git-ref "${GITHUB_REF:-refs/heads/main}"
  git -C "$wt" add -A -- baselines
  if git -C "$wt" diff --cached --quiet; then
    say "agenteval-gate: baseline \`$name\` unchanged on \`$branch\`; nothing to push"
    printf 'commit=\n' >> "$GITHUB_OUTPUT"
    exit 0
  fi
  git -C "$wt" commit -q -m "agenteval: baseline $name for ${sha:0:12} [skip ci]"
  if git -C "$wt" push -q origin "HEAD:refs/heads/$branch"; then
    commit=$(git -C "$wt" rev-parse HEAD)
    say "agenteval-gate: baseline \`$name\` for ${sha:0:12} pushed to \`$branch\` as ${commit:0:12} (attempt $attempt)"
    printf 'commit=%s\n' "$commit" >> "$GITHUB_OUTPUT"
    exit 0
  fi
  if [ "$attempt" -lt "$max_attempts" ]; then
    delay=$((attempt * 2 + RANDOM % 3))
    say "::warning title=agenteval-gate::push to \`$branch\` rejected (attempt $attempt of $max_attempts; another update may have landed first); retrying on the new tip in ${delay}s"
    sleep "$delay"
  fi
done
fail "could not push baseline \`$name\` to \`$branch\` after $max_attempts attempts"
