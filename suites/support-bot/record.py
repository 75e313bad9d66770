#!/usr/bin/env python3
"""Record the support-bot suite: run the example agent on every case.

For each case of `cases.jsonl` and each variant, this runs
`agent/agent.py` exactly as agenteval-gate's run mode would (the argv of
`agent.command` in suite.yaml, the input file, the AGENTEVAL_* variables)
and writes:

  traces/<case_id>.json             baseline variant (AGENT_VARIANT=baseline)
  traces-regressed/<case_id>.json   regressed variant (AGENT_VARIANT=regressed)
  evidence/<case_id>.json           tier-1 evidence from the baseline run
  evidence-regressed/<case_id>.json tier-1 evidence from the regressed run
  traces-flaky/trial-<i>/<case_id>.json, evidence-flaky/trial-<i>/…
                                    3 trials of AGENT_VARIANT=flaky (AGENTEVAL_TRIAL=i)
  traces-flaky-regressed/trial-<i>/…, evidence-flaky-regressed/trial-<i>/…
                                    3 trials of AGENT_VARIANT=flaky-regressed

Evidence is what an evidence collector would read from the helpdesk and the
billing system after the conversation; the agent leaves that state in
`<workdir>/backend_state.json`.

Deterministic: the agent's clock starts at a fixed base timestamp and its
durations come from an RNG seeded by the case id. Running this twice gives
byte-identical files (`--check` verifies the committed files instead of
writing them).

Usage: python3 suites/support-bot/record.py [--check]
       python3 suites/support-bot/record.py --flake-seed K --out DIR   (history runs)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SUITE = Path(__file__).resolve().parent
sys.path.insert(0, str(SUITE / "agent"))

from evidence import dumps, evidence_of  # noqa: E402

AGENT = SUITE / "agent" / "agent.py"
VARIANTS = {
    "baseline": ("traces", "evidence"),
    "regressed": ("traces-regressed", "evidence-regressed"),
}
# The stochastic variants, recorded in the replay layout of several trials
# (`<dir>/trial-<i>/`): their behaviour depends on AGENTEVAL_TRIAL.
FLAKY_VARIANTS = {
    "flaky": ("traces-flaky", "evidence-flaky"),
    "flaky-regressed": ("traces-flaky-regressed", "evidence-flaky-regressed"),
}
FLAKY_TRIALS = 3


def load_cases() -> list[dict]:
    cases = []
    for n, line in enumerate((SUITE / "cases.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                cases.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"cases.jsonl:{n}: {e}")
    return cases


def run_agent(case: dict, variant: str, workdir: Path, trial: int | None = None) -> tuple[bytes, dict]:
    """Run the agent for one case in a scratch directory; return (trace bytes, backend state).

    `trial` sets AGENTEVAL_TRIAL, as run mode does for each of `agent.trials` runs."""
    input_file = workdir / "input.json"
    trace_file = workdir / "trace.json"
    input_file.write_text(
        json.dumps(
            {
                "case_id": case["id"],
                "input": case.get("input"),
                "tags": case.get("tags", []),
                "metadata": case.get("metadata", {}),
            }
        ),
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        AGENT_VARIANT=variant,
        AGENTEVAL_CASE_ID=case["id"],
        AGENTEVAL_INPUT_FILE=str(input_file),
        AGENTEVAL_TRACE_FILE=str(trace_file),
        AGENTEVAL_WORKDIR=str(workdir),
        PYTHONHASHSEED="0",
        PYTHONDONTWRITEBYTECODE="1",
    )
    env.pop("AGENTEVAL_TRIAL", None)
    if trial is not None:
        env["AGENTEVAL_TRIAL"] = str(trial)
    # Mirrors `agent.command` in suite.yaml (sys.executable instead of `python3`).
    argv = [
        sys.executable,
        str(AGENT.relative_to(SUITE)),
        "--input",
        str(input_file),
        "--trace-out",
        str(trace_file),
        "--workdir",
        str(workdir),
    ]
    proc = subprocess.run(argv, cwd=SUITE, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"agent failed on {case['id']} ({variant}), exit {proc.returncode}:\n{proc.stderr}")
    state = json.loads((workdir / "backend_state.json").read_text(encoding="utf-8"))
    return trace_file.read_bytes(), state


def main() -> int:
    parser = argparse.ArgumentParser(description="Record the support-bot traces and evidence.")
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    parser.add_argument(
        "--flake-seed",
        metavar="K",
        help="record the baseline variant with AGENT_FLAKE_SEED=K (transient tool failures) into --out",
    )
    parser.add_argument("--out", metavar="DIR", type=Path, help="with --flake-seed: write DIR/traces and DIR/evidence")
    args = parser.parse_args()

    cases = load_cases()
    if args.flake_seed is not None:
        if args.out is None:
            sys.exit("--flake-seed needs --out DIR")
        os.environ["AGENT_FLAKE_SEED"] = args.flake_seed
        for case in cases:
            with tempfile.TemporaryDirectory(prefix="support-bot-") as tmp:
                trace, state = run_agent(case, "baseline", Path(tmp))
            for sub, data in (("traces", trace), ("evidence", dumps(evidence_of(state)))):
                (args.out / sub).mkdir(parents=True, exist_ok=True)
                (args.out / sub / f"{case['id']}.json").write_bytes(data)
        print(f"wrote {len(cases)} traces with AGENT_FLAKE_SEED={args.flake_seed} to {args.out}")
        return 0
    outputs: dict[Path, bytes] = {}
    for variant, (trace_dir, evidence_dir) in VARIANTS.items():
        for case in cases:
            with tempfile.TemporaryDirectory(prefix="support-bot-") as tmp:
                trace, state = run_agent(case, variant, Path(tmp))
            outputs[SUITE / trace_dir / f"{case['id']}.json"] = trace
            outputs[SUITE / evidence_dir / f"{case['id']}.json"] = dumps(evidence_of(state))
    for variant, (trace_dir, evidence_dir) in FLAKY_VARIANTS.items():
        for trial in range(FLAKY_TRIALS):
            for case in cases:
                with tempfile.TemporaryDirectory(prefix="support-bot-") as tmp:
                    trace, state = run_agent(case, variant, Path(tmp), trial)
                sub = f"trial-{trial}/{case['id']}.json"
                outputs[SUITE / trace_dir / sub] = trace
                outputs[SUITE / evidence_dir / sub] = dumps(evidence_of(state))

    if args.check:
        stale = [p for p, data in outputs.items() if not p.is_file() or p.read_bytes() != data]
        for p in stale:
            print(f"stale: {p.relative_to(SUITE)}", file=sys.stderr)
        print(f"checked {len(outputs)} files, {len(stale)} differ")
        return 1 if stale else 0

    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    differ = [
        c["id"]
        for c in cases
        if outputs[SUITE / "evidence" / f"{c['id']}.json"] != outputs[SUITE / "evidence-regressed" / f"{c['id']}.json"]
    ]
    print(
        f"wrote {len(outputs)} files for {len(cases)} cases x {len(VARIANTS)} variants"
        f" and x {FLAKY_TRIALS} trials of {len(FLAKY_VARIANTS)} flaky variants"
    )
    print(f"evidence differs between variants for: {', '.join(differ) or 'no case'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
