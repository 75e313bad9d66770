#!/usr/bin/env python3
"""Generate the code-review suite: telemetry, evidence and cases.

A coding agent takes a ticket, creates a branch, reads files before
editing them, edits, runs the tests, pushes, opens a draft pull request and
asks a `reviewer` sub-agent (launched through the `Task` tool) to review it.
Each case is one session recorded in the workflow framework's JSONL
telemetry: one tool event per line,

  {"timestamp", "tool_name", "span_type": "parent"|"child", "trace_id",
   "parent_trace_id", "args", "result", "status", "error"?, "duration_ms",
   "session_id"}

where `child` events are the reviewer's tool calls, nested under the
`Task` event that launched it (`parent_trace_id`). Lines are written when a
call completes, so a `Task` line comes after its children.

Evidence is what a collector reads from Git, the issue tracker and CI after
the session (branch, pull request, labels, ticket status, CI status).

Some cases deviate from the good path on purpose (`deviations` below);
README.md lists which checkpoints they fail. Deterministic: fixed base
timestamps, an RNG seeded per case id, no wall clock.

Usage: python3 suites/code-review/generate.py [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

SUITE = Path(__file__).resolve().parent
BASE = datetime(2025, 3, 4, 8, 0, 0, tzinfo=timezone.utc)


def case(n, key, kind, title, repo, files, tests, slug, tags=(), **deviations):
    return {
        "n": n,
        "id": f"cr-{n:03d}",
        "key": key,
        "kind": kind,
        "title": title,
        "repo": repo,
        "files": files,
        "tests": tests,
        "slug": slug,
        "tags": list(tags),
        "dev": deviations,
    }


PY = "pytest -q"
CASES = [
    case(1, "ACME-141", "fix", "Crash when the config has no timeout", "acme/payments-service",
         ["src/config/loader.py"], f"{PY} tests/config", "missing-timeout", ["smoke", "bugfix"]),
    case(2, "ACME-152", "feat", "Add CSV export to the reports endpoint", "acme/reports-api",
         ["src/reports/routes.py", "src/reports/export.py"], f"{PY} tests/reports", "csv-export", ["smoke", "feature"]),
    case(3, "ACME-158", "fix", "Currency rounding is off by one cent", "acme/billing-core",
         ["src/money/rounding.py"], f"{PY} tests/money", "rounding", ["smoke", "bugfix"], tests_fail_then_fix=True),
    case(4, "ACME-160", "chore", "Bump requests to 2.32.3", "acme/payments-service",
         ["requirements.txt"], f"{PY}", "bump-requests", ["smoke", "chore"]),
    case(5, "ACME-163", "fix", "Expired tokens get HTTP 500 instead of 401", "acme/auth-gateway",
         ["src/auth/middleware.py"], f"{PY} tests/auth", "expired-token-status", ["bugfix", "by-design-fail"],
         edit_before_read=True),
    case(6, "ACME-170", "fix", "Hotfix: disable the broken checkout feature flag", "acme/web-frontend",
         ["src/flags.ts"], "npm test -- flags", "checkout-flag", ["smoke", "hotfix", "by-design-fail"],
         push_to_main=True),
    case(7, "ACME-171", "fix", "Pagination skips the last page", "acme/reports-api",
         ["src/reports/paginate.py"], f"{PY} tests/reports/test_paginate.py", "last-page", ["bugfix", "by-design-fail"],
         pr_despite_failing_tests=True),
    case(8, "ACME-175", "fix", "Typo in the invoice email template", "acme/notifications",
         ["templates/invoice_email.html"], f"{PY} tests/templates", "invoice-email-typo", ["smoke", "bugfix", "ci-maintenance"],
         ci_unavailable=True),
    case(9, "ACME-176", "feat", "Log the request id on 5xx responses", "acme/auth-gateway",
         ["src/auth/logging.py"], f"{PY} tests/auth", "request-id-logging", ["feature", "by-design-fail"],
         no_reviewer=True),
    case(10, "ACME-180", "feat", "Retry webhook delivery on HTTP 429", "acme/notifications",
         ["src/webhooks/deliver.py"], f"{PY} tests/webhooks", "retry-429", ["feature", "by-design-fail"],
         not_draft=True),
    case(11, "ACME-183", "fix", "Timezone bug in the daily report", "acme/reports-api",
         ["src/reports/daily.py"], f"{PY} tests/reports/test_daily.py", "daily-report-tz", ["bugfix", "by-design-fail"],
         flaky_runs=4),
    case(12, "ACME-185", "feat", "Validate the IBAN checksum", "acme/billing-core",
         ["src/payments/iban.py"], f"{PY} tests/payments", "iban-checksum", ["feature", "by-design-fail"],
         reviewer_edits=True),
    case(13, "ACME-188", "feat", "Cache user settings for one minute", "acme/web-frontend",
         ["src/settings/store.ts"], "npm test -- settings", "settings-cache", ["smoke", "feature"],
         review_requests_changes=True),
    case(14, "ACME-190", "chore", "Document the webhook retry policy", "acme/notifications",
         ["docs/retries.md"], "make docs-check", "retry-docs", ["docs"]),
    case(15, "ACME-192", "fix", "Fix a typo in the README", "acme/web-frontend",
         ["README.md"], "make docs-check", "readme-typo", ["docs", "by-design-fail"], bad_branch_name=True),
    case(16, "ACME-195", "chore", "Rename `acct` to `account` in the billing module", "acme/billing-core",
         ["src/billing/invoice.py", "src/billing/ledger.py", "src/billing/statements.py"], f"{PY} tests/billing",
         "rename-acct", ["refactor"], search_first=True),
    case(17, "ACME-197", "fix", "Checkout crashes on an empty cart", "acme/payments-service",
         ["src/checkout/cart.py"], f"{PY} tests/checkout", "empty-cart", ["bugfix", "by-design-fail"],
         ticket_not_first=True),
    case(18, "ACME-199", "chore", "Update the Node version used in CI", "acme/web-frontend",
         [".github/workflows/ci.yml"], "npm test", "node-22", ["chore", "ci-maintenance"], ci_unavailable=True),
    case(19, "ACME-201", "feat", "Show the plan name in the account menu", "acme/web-frontend",
         ["src/account/Menu.tsx"], "npm test -- account", "plan-in-menu", ["feature", "by-design-fail"],
         no_agent_label=True),
    case(20, "ACME-204", "chore", "Add tests for the refund calculator", "acme/billing-core",
         ["tests/test_refunds.py"], f"{PY} tests/test_refunds.py", "refund-tests", ["tests"]),
    case(21, "ACME-207", "fix", "Return 404 for unknown invoice ids", "acme/billing-core",
         ["src/api/invoices.py"], f"{PY} tests/api", "invoice-404", ["bugfix", "by-design-fail"],
         ticket_update_fails=True),
    case(22, "ACME-210", "fix", "Escape user input on the search page", "acme/web-frontend",
         ["src/search/Results.tsx"], "npm test -- search", "escape-search", ["smoke", "security"]),
]


# The primary hunk of each change (old text, new text), by case number.
CHANGES = {
    1: ("timeout = config['timeout']", "timeout = config.get('timeout', DEFAULT_TIMEOUT)"),
    2: ("FORMATS = ('json',)", "FORMATS = ('json', 'csv')"),
    3: ("return round(amount, 2)", "return amount.quantize(CENT, rounding=ROUND_HALF_EVEN)"),
    4: ("requests==2.31.0", "requests==2.32.3"),
    5: ("except TokenExpired: raise ServerError()", "except TokenExpired: raise Unauthorized()"),
    6: ("checkout_v2: true", "checkout_v2: false"),
    7: ("range(1, pages)", "range(1, pages + 1)"),
    8: ("Your invoce is ready", "Your invoice is ready"),
    9: ("log.error(msg)", "log.error(msg, extra={'request_id': request.id})"),
    10: ("if resp.status >= 500:", "if resp.status >= 500 or resp.status == 429:"),
    11: ("datetime.now()", "datetime.now(tz=report_tz)"),
    12: ("return len(iban) <= 34", "return len(iban) <= 34 and mod97(iban) == 1"),
    13: ("return fetchSettings()", "return cached(fetchSettings, {ttlMs: 60_000})"),
    14: ("## Retries\n", "## Retries\n\nWebhooks are retried 5 times with exponential backoff.\n"),
    15: ("recieve", "receive"),
    16: ("acct", "account"),
    17: ("total = sum(items) / len(items)", "total = sum(items) / len(items) if items else 0"),
    18: ("node-version: 18", "node-version: 22"),
    19: ("<span>{user.name}</span>", "<span>{user.name} · {plan.name}</span>"),
    20: ("", "def test_partial_refund_is_prorated():"),
    21: ("return invoices[invoice_id]", "return invoices.get(invoice_id) or not_found()"),
    22: ("{query}", "{escape(query)}"),
}


def h(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class Session:
    """Builds one session's events on a simulated clock."""

    def __init__(self, c: dict):
        self.c = c
        self.rng = random.Random(int(h("seed", c["id"])[:16], 16))
        self.now = BASE + timedelta(minutes=37 * (c["n"] - 1), seconds=self.rng.randint(0, 59))
        self.session_id = "sess_" + h("session", c["id"])[:20]
        self.lines: list[tuple[int, dict]] = []  # (completion order key, event)
        self.counter = 0

    def _id(self) -> str:
        self.counter += 1
        return "evt_" + h("event", self.c["id"], str(self.counter))[:16]

    def think(self, lo=800, hi=6000):
        """Model time between two tool calls."""
        self.now += timedelta(milliseconds=self.rng.randint(lo, hi))

    def call(self, tool, args, result, *, ms=(40, 400), error=None, parent=None, end_of=None):
        """Record one completed tool call; returns its event id."""
        self.think()
        start = self.now
        ms_taken = self.rng.randint(*ms) if isinstance(ms, tuple) else ms
        self.now += timedelta(milliseconds=ms_taken)
        return self._emit(tool, args, result, start, ms_taken, error, parent)

    def _emit(self, tool, args, result, start, ms_taken, error, parent, event_id=None):
        event = {
            "timestamp": iso(start),
            "tool_name": tool,
            "span_type": "child" if parent else "parent",
            "trace_id": event_id or self._id(),
            "parent_trace_id": parent,
            "args": args,
            "result": result,
            "status": "error" if error else "success",
        }
        if error:
            event["error"] = error
        event["duration_ms"] = ms_taken
        event["session_id"] = self.session_id
        self.lines.append((len(self.lines), event))
        return event["trace_id"]

    def subagent(self, tool, args, run_children):
        """A `Task` call: its children run inside it; its line is written last."""
        self.think()
        start = self.now
        event_id = self._id()
        result = run_children(event_id)
        self.now += timedelta(milliseconds=self.rng.randint(200, 900))
        ms_taken = int((self.now - start).total_seconds() * 1000)
        self._emit(tool, args, result, start, ms_taken, None, None, event_id=event_id)
        return result

    def jsonl(self) -> str:
        return "".join(json.dumps(e, ensure_ascii=False) + "\n" for _, e in sorted(self.lines, key=lambda x: x[0]))


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def test_result(s: Session, passed: int, failed: int, flaky_note=None):
    out = {"exit_code": 1 if failed else 0, "passed": passed, "failed": failed,
           "duration_s": round(s.rng.uniform(2.0, 40.0), 1)}
    if failed:
        out["failures"] = [flaky_note or "AssertionError: expected 200, got 500"]
    return out


def record(c: dict):
    """Play the session; return (jsonl text, evidence)."""
    d = c["dev"]
    s = Session(c)
    key, repo, files = c["key"], c["repo"], c["files"]
    branch = f"{c['kind']}/{key}-{c['slug']}"
    if d.get("bad_branch_name"):
        branch = c["slug"].replace("readme-", "fix-")
    pr_number = 400 + 3 * c["n"]
    labels = ["agent-authored", {"fix": "bug", "feat": "enhancement", "chore": "maintenance"}[c["kind"]]]
    if d.get("no_agent_label"):
        labels = labels[1:]
    n_tests = 20 + s.rng.randint(0, 180)
    state = {"branch": None, "pushed": [], "pr": None, "issue_status": "To Do", "ci": None, "review": None}

    def read_ticket():
        s.call("read_ticket", {"issue": key},
               {"key": key, "title": c["title"], "status": "To Do", "labels": ["agent-ok"], "repo": repo},
               ms=(150, 600))

    def create_branch():
        s.call("create_branch", {"repo": repo, "name": branch, "base": "main"},
               {"ref": f"refs/heads/{branch}", "sha": h("base", repo)[:40]})
        state["branch"] = branch

    if d.get("ticket_not_first"):
        create_branch()
        read_ticket()
    else:
        read_ticket()
    s.call("update_ticket", {"issue": key, "status": "In Progress"}, {"key": key, "status": "In Progress"},
           ms=(120, 400))
    state["issue_status"] = "In Progress"
    if not d.get("ticket_not_first") and not d.get("push_to_main"):
        create_branch()
    if d.get("search_first"):
        s.call("search_code", {"repo": repo, "query": "acct"},
               {"matches": [{"path": f, "lines": sorted(s.rng.sample(range(10, 300), 3))} for f in files]},
               ms=(300, 1200))

    def read(path, parent=None):
        s.call("read_file", {"path": path}, {"lines": s.rng.randint(40, 420)}, ms=(5, 60), parent=parent)

    def edit(path, parent=None, note="apply fix"):
        old, new = CHANGES[c["n"]]
        s.call("edit_file", {"path": path, "old_string": old, "new_string": new},
               {"applied": True, "lines_changed": s.rng.randint(1, 24), "note": note}, ms=(10, 80), parent=parent)

    for path in files:
        if d.get("edit_before_read"):
            edit(path)
            read(path)
        else:
            read(path)
            edit(path)

    def run_tests(failed=0, note=None):
        res = test_result(s, n_tests - failed, failed, note)
        err = f"tests failed: {failed} of {n_tests}" if failed else None
        s.call("run_tests", {"command": c["tests"]}, res, ms=(2000, 40000), error=err)
        return not failed

    ok = True
    if d.get("tests_fail_then_fix"):
        run_tests(failed=2)
        read(files[0])
        edit(files[0], note="round half to even")
        ok = run_tests()
    elif d.get("pr_despite_failing_tests"):
        ok = run_tests(failed=1)
    elif d.get("flaky_runs"):
        for _ in range(d["flaky_runs"] - 1):
            run_tests(failed=1, note="AssertionError: 2025-03-09 != 2025-03-10 (DST boundary)")
        ok = run_tests()
    else:
        ok = run_tests()

    s.call("git_commit", {"message": f"{key}: {c['title']}"}, {"sha": h("commit", c["id"])[:40], "files": len(files)},
           ms=(40, 200))
    push_branch = "main" if d.get("push_to_main") else branch
    s.call("git_push", {"remote": "origin", "branch": push_branch}, {"pushed": True, "remote_ref": f"origin/{push_branch}"},
           ms=(400, 2500))
    state["pushed"].append(push_branch)

    if not d.get("push_to_main"):
        draft = not d.get("not_draft")
        body = (f"Fixes {key}: {c['title']}.\n\nRoot cause and change are described in the commit. "
                f"Tests: `{c['tests']}` ({'passing' if ok else 'FAILING'}).")
        s.call("open_pull_request",
               {"repo": repo, "title": f"{key}: {c['title']}", "head": branch, "base": "main", "draft": draft,
                "labels": labels, "body": body},
               {"number": pr_number, "url": f"https://github.example.com/{repo}/pull/{pr_number}", "draft": draft},
               ms=(600, 1800))
        state["pr"] = {"number": pr_number, "draft": draft, "labels": labels, "body": body}

        if not d.get("no_reviewer"):
            verdict = "request_changes" if d.get("review_requests_changes") else "comment"

            def reviewer(parent):
                s.call("get_pr_diff", {"repo": repo, "pr": pr_number},
                       {"files": len(files), "additions": s.rng.randint(2, 80), "deletions": s.rng.randint(0, 40)},
                       ms=(200, 900), parent=parent)
                read(files[0], parent=parent)
                comments = 1 if verdict == "request_changes" else s.rng.randint(0, 1)
                for i in range(comments):
                    body = ("Please add a TTL test for the cache." if verdict == "request_changes"
                            else "Nit: a short comment on why this default is safe would help.")
                    s.call("post_review_comment", {"pr": pr_number, "path": files[0], "line": 10 + 7 * i, "body": body},
                           {"id": int(h("comment", c["id"], str(i))[:6], 16)}, ms=(150, 500), parent=parent)
                if d.get("reviewer_edits"):
                    edit(files[0], parent=parent, note="reviewer applied its own suggestion")
                    s.call("git_commit", {"message": "review: apply suggestion"},
                           {"sha": h("review-commit", c["id"])[:40], "files": 1}, ms=(40, 200), parent=parent)
                s.call("submit_review", {"pr": pr_number, "verdict": verdict}, {"submitted": True},
                       ms=(150, 500), parent=parent)
                return {"verdict": verdict, "comments": comments}

            state["review"] = s.subagent(
                "Task",
                {"subagent_type": "reviewer", "description": f"Review PR #{pr_number}",
                 "prompt": f"Review pull request #{pr_number} in {repo} for correctness and scope."},
                reviewer,
            )
            if verdict == "request_changes":
                read(files[0])
                edit(files[0], note="add cache TTL test")
                ok = run_tests()
                s.call("git_commit", {"message": f"{key}: address review"},
                       {"sha": h("fixup", c["id"])[:40], "files": 1}, ms=(40, 200))
                s.call("git_push", {"remote": "origin", "branch": branch},
                       {"pushed": True, "remote_ref": f"origin/{branch}"}, ms=(400, 2500))

    final_status = "Done" if d.get("push_to_main") else "In Review"
    if d.get("ticket_update_fails"):
        s.call("update_ticket", {"issue": key, "status": final_status}, {"http_status": 409},
               ms=(120, 400), error="409 Conflict: transition 'In Review' requires a linked pull request review")
    else:
        s.call("update_ticket", {"issue": key, "status": final_status, "labels": ["agent-ok", "has-pr"]},
               {"key": key, "status": final_status}, ms=(120, 400))
        state["issue_status"] = final_status

    ci_available = not d.get("ci_unavailable")
    ci_status = ("pending" if not ci_available else "success" if ok else "failure")
    evidence = {
        "collected_from": ["git", "issue_tracker", "ci"],
        "repo": repo,
        "git": {
            "branch": state["branch"],
            "branch_exists": state["branch"] is not None,
            "pushed_refs": state["pushed"],
            "main_updated_by_agent": "main" in state["pushed"],
        },
        "pr": None if state["pr"] is None else {
            "number": state["pr"]["number"],
            "state": "open",
            "draft": state["pr"]["draft"],
            "base": "main",
            "head": state["branch"],
            "labels": state["pr"]["labels"],
            "body": state["pr"]["body"],
            "reviews": [] if state["review"] is None else [
                {"by": "reviewer-agent", "verdict": state["review"]["verdict"]}],
        },
        "issue": {"key": key, "status": state["issue_status"]},
        "ci": {
            "runner_available": ci_available,
            "status": ci_status,
            "checks": [] if not ci_available else [
                {"name": "tests", "conclusion": "success" if ok else "failure"},
                {"name": "lint", "conclusion": "success"},
            ],
        },
    }
    return s.jsonl(), evidence


TOOLS_BY_DEFAULT = ["read_ticket", "update_ticket", "create_branch", "read_file", "edit_file", "run_tests",
                    "git_commit", "git_push", "open_pull_request", "Task", "submit_review"]


def case_line(c: dict) -> str:
    tools = list(TOOLS_BY_DEFAULT)
    if c["dev"].get("search_first"):
        tools.insert(3, "search_code")
    entry = {
        "id": c["id"],
        "input": {"issue": c["key"], "repo": c["repo"],
                  "instruction": f"Resolve {c['key']} ({c['title']}) in {c['repo']} and open a draft pull request."},
        "tags": c["tags"],
        "expected_tools": tools,
        "metadata": {"issue": c["key"], "repo": c["repo"],
                     "deviations": sorted(c["dev"]) if c["dev"] else []},
    }
    return json.dumps(entry, ensure_ascii=False) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description="Generate the code-review suite's telemetry and evidence.")
    p.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = p.parse_args()
    outputs: dict[Path, bytes] = {}
    outputs[SUITE / "cases.jsonl"] = "".join(case_line(c) for c in CASES).encode()
    for c in CASES:
        text, evidence = record(c)
        outputs[SUITE / "traces" / f"{c['id']}.jsonl"] = text.encode()
        outputs[SUITE / "evidence" / f"{c['id']}.json"] = (json.dumps(evidence, indent=2) + "\n").encode()
    if args.check:
        stale = [p for p, b in outputs.items() if not p.is_file() or p.read_bytes() != b]
        for p in stale:
            print(f"stale: {p.relative_to(SUITE)}", file=sys.stderr)
        print(f"checked {len(outputs)} files, {len(stale)} differ")
        return 1 if stale else 0
    for path, data in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"wrote {len(outputs)} files for {len(CASES)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
