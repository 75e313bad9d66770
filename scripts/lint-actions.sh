#!/usr/bin/env bash
# Lint the GitHub Actions side: zizmor (offline audits of every workflow and
# action.yml) and shellcheck (every `run:` block of the workflows and of
# action.yml, written out as a bash script, plus scripts/*.sh and .ci/run).
# Any finding fails.
#
#   scripts/lint-actions.sh [--install]
#
# --install installs what is missing from the package registries (zizmor and
# PyYAML with pip, shellcheck with apt-get) and, if that is impossible, says
# so and exits 0 without linting (for .ci/run on machines without them);
# without it a missing tool is an error.
set -euo pipefail
cd "$(dirname "$0")/.."

install=false
if [ "${1:-}" = --install ]; then install=true; fi

missing() { ! command -v "$1" >/dev/null 2>&1; }
have_yaml() { python3 -c 'import yaml' >/dev/null 2>&1; }

if $install; then
  if missing zizmor || ! have_yaml; then
    # A plain pip, else a user install, else pipx (runners whose system
    # Python is externally managed, PEP 668).
    python3 -m pip install --quiet --disable-pip-version-check 'zizmor==1.32.0' 'PyYAML>=6' >&2 \
      || python3 -m pip install --quiet --user --disable-pip-version-check 'zizmor==1.32.0' 'PyYAML>=6' >&2 \
      || { command -v pipx >/dev/null 2>&1 && pipx install --quiet 'zizmor==1.32.0' >&2; } \
      || true
    export PATH="$PATH:$HOME/.local/bin"
  fi
  if missing shellcheck && command -v apt-get >/dev/null 2>&1; then
    { apt-get install -y -qq shellcheck || { apt-get update -qq && apt-get install -y -qq shellcheck; }; } >/dev/null 2>&1 || true
  fi
  for tool in zizmor shellcheck python3; do
    if missing "$tool"; then
      echo "note: \`$tool\` could not be installed from the package registries; skipping the Actions lint" >&2
      exit 0
    fi
  done
  if ! have_yaml; then
    echo "note: PyYAML could not be installed; skipping the Actions lint" >&2
    exit 0
  fi
fi
for tool in zizmor shellcheck python3; do
  if missing "$tool"; then
    echo "error: \`$tool\` is not installed (pip install zizmor; apt-get install shellcheck), or use --install" >&2
    exit 1
  fi
done

status=0
echo "zizmor $(zizmor --version | cut -d ' ' -f 2) --offline"
zizmor --offline --no-progress --quiet .github/workflows action.yml || status=1

# Every `run:` block as a script: `${{ … }}` becomes a plain word (as
# actionlint does), and the shell's options are those of the runner for
# `shell: bash` (-eo pipefail).
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" .github/workflows/*.yml action.yml <<'PY'
import pathlib, re, sys, yaml

out = pathlib.Path(sys.argv[1])
count = 0
for name in sys.argv[2:]:
    doc = yaml.safe_load(open(name, encoding="utf-8"))
    jobs = doc.get("jobs") or {"action": {"steps": (doc.get("runs") or {}).get("steps", [])}}
    for job_id, job in jobs.items():
        for i, step in enumerate(job.get("steps") or []):
            script = step.get("run")
            if not script:
                continue
            script = re.sub(r"\$\{\{.*?\}\}", "EXPR", script)
            base = pathlib.Path(name).stem
            path = out / f"{base}.{job_id}.{i + 1}.sh"
            path.write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + script, encoding="utf-8")
            count += 1
print(f"{count} run: blocks extracted")
PY
echo "shellcheck $(shellcheck --version | sed -n 's/^version: //p'): run: blocks, scripts/*.sh, .ci/run"
(cd "$dir" && shellcheck --shell=bash -- *.sh) || status=1
shellcheck -- scripts/*.sh .ci/run bench/*.sh || status=1
if [ "$status" -eq 0 ]; then
  echo "actions lint: no findings"
fi
exit "$status"
