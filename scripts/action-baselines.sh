#!/usr/bin/env bash
# The `baselines` step of action.yml: make the baseline the gate compares
# with readable in the checkout, and name it for the tool.
#
#   INPUT_BASELINE_BRANCH set (e.g. `agenteval-baselines`): fetch that branch
#     from `origin` into `refs/remotes/origin/<branch>` and output
#     `ref=origin/<branch>` (the action exports it as AGENTEVAL_BASELINE_REF,
#     so `compare` reads `baselines/` from that commit). A branch that does
#     not exist yet (nothing merged since the gate was added) means "no
#     baseline": the output is git's empty tree, where every baseline file is
#     missing, so the first pull request passes with a note (or fails with
#     `require-baseline: true`).
#   otherwise, in a pull request (BASE_SHA): fetch the base commit if the
#     checkout lacks it (actions/checkout fetches only the merge commit), so
#     that the tool's default, `baselines/` at the PR's base commit, works.
#     No output: the tool's default applies.
#
# The token (GITHUB_TOKEN, the action's `github-token`) authenticates the
# fetch through GIT_CONFIG_* variables of this one process: it is never
# written to .git/config (checkout's `persist-credentials: false` stays true)
# and never appears in a command line.
set -euo pipefail

say() { printf '%s\n' "$*"; }
fail() {
  say "::error title=agenteval-gate::$1"
  exit "${2:-1}"
}

branch=${INPUT_BASELINE_BRANCH:-}
base=${BASE_SHA:-}

if ! git rev-parse --git-dir >/dev/null 2>&1; then
  if [ -n "$branch" ]; then
    fail "\`baseline-branch: $branch\` needs a git checkout of the repository (actions/checkout) in the working directory"
  fi
  exit 0
fi

# HTTP auth for `origin` for this process only.
if [ -n "${GITHUB_TOKEN:-}" ]; then
  basic=$(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 | tr -d '\n')
  export GIT_CONFIG_COUNT=1
  export GIT_CONFIG_KEY_0=http.extraHeader
  export GIT_CONFIG_VALUE_0="AUTHORIZATION: basic $basic"
  unset GITHUB_TOKEN basic
fi

if [ -n "$branch" ]; then
  if ! git check-ref-format --branch "$branch" >/dev/null 2>&1 || [[ "$branch" == -* ]]; then
    fail "input \`baseline-branch\` is \`$branch\`, which is not a branch name" 64
  fi
  set +e
  git ls-remote --exit-code --heads origin "refs/heads/$branch" >/dev/null
  found=$?
  set -e
  case "$found" in
    0)
      git fetch --no-tags --depth=1 origin "+refs/heads/$branch:refs/remotes/origin/$branch"
      say "agenteval-gate: baselines from branch \`$branch\` at $(git rev-parse --short "refs/remotes/origin/$branch")"
      printf 'ref=%s\n' "origin/$branch" >> "$GITHUB_OUTPUT"
      ;;
    2)
      empty=$(git hash-object -w -t tree /dev/null)
      say "::notice title=agenteval-gate::branch \`$branch\` does not exist yet, so there is no baseline: the first merge to the default branch writes it (baseline.yml)"
      printf 'ref=%s\n' "$empty" >> "$GITHUB_OUTPUT"
      ;;
    *) fail "cannot list the branches of \`origin\` to find \`$branch\` (git ls-remote exit $found)" ;;
  esac
  exit 0
fi

if [ -n "$base" ]; then
  if ! [[ "$base" =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]]; then
    fail "the pull request's base commit \`$base\` is not a commit SHA"
  fi
  if git cat-file -e "$base^{commit}" 2>/dev/null; then
    exit 0
  fi
  if git fetch --no-tags --depth=1 origin "$base"; then
    say "agenteval-gate: fetched the pull request's base commit ${base:0:12} (its baselines/ is the baseline)"
  else
    say "::warning title=agenteval-gate::cannot fetch the pull request's base commit $base; the gate will say what it cannot read"
  fi
fi
