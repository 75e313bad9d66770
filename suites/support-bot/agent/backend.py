"""Simulated back-office systems for the example support agent.

Accounts, invoices and payments are fixed data below; refunds, tickets and
hand-offs mutate an in-memory state that the agent writes to
`<workdir>/backend_state.json` when it finishes. `record.py` turns that
state into the suite's tier-1 evidence, the way a real evidence collector
would query the helpdesk and the billing system after a run.

Environment facts come from the case metadata:
  metadata.environment = "staging"  -> refunds are queued, not issued
  metadata.faults = [...]           -> injected faults:
      "helpdesk_unavailable"  create_ticket fails with HTTP 503 and the
                              conversation record cannot be updated
      "invoices_timeout_once" the first get_invoices call times out
"""

from __future__ import annotations

import copy
import hashlib
import os

# AGENT_FLAKE_SEED=<k> makes read-only tool calls fail transiently (HTTP 503)
# for about FLAKE_RATE of calls, chosen by a hash of the seed, the case, the
# tool and the call index: the run-to-run noise of a real deployment. Used
# only to build baseline history (scripts/bootstrap-baselines.sh).
FLAKE_RATE = 0.08
FLAKY_TOOLS = {"lookup_account"}


class ToolError(Exception):
    """A tool call that failed; `kind` becomes the span's `error.type`."""

    def __init__(self, kind: str, message: str, duration_ms: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.duration_ms = duration_ms


def _inv(invoice_id, period, amount, status, due, kind="subscription"):
    return {
        "invoice_id": invoice_id,
        "period": period,
        "amount_usd": amount,
        "status": status,
        "due_date": due,
        "kind": kind,
    }


PLANS = {
    "Basic": {"price_usd": 9.99, "features": ["email_support"]},
    "Pro": {"price_usd": 49.0, "features": ["email_support", "reports", "api_access"]},
    "Team": {"price_usd": 99.0, "features": ["email_support", "reports", "api_access", "shared_workspaces"]},
    "Business": {
        "price_usd": 199.0,
        "features": ["email_support", "reports", "api_access", "shared_workspaces", "sso", "audit_log"],
    },
}

ACCOUNTS = {
    "A-1001": {
        "name": "Dana Whitfield",
        "email": "dana.whitfield@example.com",
        "plan": "Pro",
        "billing_cycle": "monthly",
        "invoices": [
            _inv("INV-2025-0115", "2025-01", 49.0, "paid", "2025-01-15"),
            _inv("INV-2025-0215", "2025-02", 49.0, "paid", "2025-02-15"),
            _inv("INV-2025-0315", "2025-03", 89.0, "open", "2025-03-15"),
        ],
    },
    "A-1002": {
        "name": "Marco Bianchi",
        "email": "marco.bianchi@example.com",
        "plan": "Team",
        "billing_cycle": "annual",
        "renews_on": "2025-09-01",
        "invoices": [_inv("INV-2024-0901", "2024-09/2025-08", 1188.0, "paid", "2024-09-01")],
    },
    "A-1003": {
        "name": "Priya Raman",
        "email": "priya.raman@example.com",
        "plan": "Pro",
        "billing_cycle": "monthly",
        "invoices": [
            _inv("INV-2025-0203", "2025-02", 19.99, "paid", "2025-02-03"),
            _inv("INV-2025-0204", "2025-02", 19.99, "paid", "2025-02-03"),
            _inv("INV-2025-0210", "2025-02", 5.0, "paid", "2025-02-10", kind="late_fee"),
        ],
    },
    "A-1004": {
        "name": "Lars Nilsson",
        "email": "lars.nilsson@example.com",
        "plan": "Basic",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0301", "2025-03", 9.99, "paid", "2025-03-01")],
    },
    "A-1005": {
        "name": "Chen Wei",
        "email": "chen.wei@example.com",
        "plan": "Business",
        "billing_cycle": "annual",
        "renews_on": "2025-11-01",
        "invoices": [_inv("INV-2024-1101", "2024-11/2025-10", 2388.0, "paid", "2024-11-01")],
    },
    "A-1006": {
        "name": "Fatima Zahra",
        "email": "fatima.zahra@example.com",
        "plan": "Pro",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0305", "2025-03", 49.0, "open", "2025-03-05")],
    },
    "A-1007": {
        "name": "Jonas Berg",
        "email": "jonas.berg@example.com",
        "plan": "Basic",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0308", "2025-03", 9.99, "paid", "2025-03-08")],
    },
    "A-1008": {
        "name": "Aiko Tanaka",
        "email": "aiko.tanaka@example.com",
        "plan": "Pro",
        "billing_cycle": "monthly",
        "invoices": [
            _inv("INV-2025-0112", "2025-01", 49.0, "paid", "2025-01-12"),
            _inv("INV-2025-0212", "2025-02", 49.0, "paid", "2025-02-12"),
            _inv("INV-2025-0312", "2025-03", 49.0, "paid", "2025-03-12"),
        ],
    },
    "A-1009": {
        "name": "Sam Okafor",
        "email": "sam.okafor@example.com",
        "plan": "Basic",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0302", "2025-03", 9.99, "paid", "2025-03-02")],
    },
    "A-1010": {
        "name": "Nora Lindqvist",
        "email": "nora.lindqvist@example.com",
        "plan": "Basic",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0320", "2025-03", 9.99, "open", "2025-03-20")],
    },
    "A-1011": {
        "name": "Erik Lindqvist",
        "email": "erik.lindqvist@example.com",
        "plan": "Pro",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0322", "2025-03", 49.0, "open", "2025-03-22")],
    },
    "A-1012": {
        "name": "Ingrid Lindqvist",
        "email": "ingrid.lindqvist@example.com",
        "plan": "Team",
        "billing_cycle": "monthly",
        "invoices": [
            _inv("INV-2025-0218", "2025-02", 99.0, "paid", "2025-02-18"),
            _inv("INV-2025-0228", "2025-02", 12.5, "paid", "2025-02-28", kind="late_fee"),
            _inv("INV-2025-0318", "2025-03", 99.0, "paid", "2025-03-18"),
        ],
    },
    "A-1013": {
        "name": "Olga Petrova",
        "email": "olga.petrova@example.com",
        "plan": "Team",
        "billing_cycle": "monthly",
        "invoices": [
            _inv("INV-2025-0207", "2025-02", 99.0, "open", "2025-02-07"),
            _inv("INV-2025-0307", "2025-03", 99.0, "open", "2025-03-07"),
        ],
    },
    "A-1014": {
        "name": "Hugo Martin",
        "email": "hugo.martin@example.com",
        "plan": "Business",
        "billing_cycle": "annual",
        "renews_on": "2026-01-10",
        "invoices": [
            _inv("INV-2025-0110", "2025-01/2025-12", 2388.0, "paid", "2025-01-10"),
            _inv("INV-2025-0111", "2025-01/2025-12", 250.0, "paid", "2025-01-10", kind="add_on"),
        ],
    },
    "A-1015": {
        "name": "Grace Kim",
        "email": "grace.kim@example.com",
        "plan": "Team",
        "billing_cycle": "monthly",
        "invoices": [
            _inv("INV-2025-0201", "2025-02", 49.0, "paid", "2025-02-01"),
            _inv("INV-2025-0214", "2025-02", 25.0, "paid", "2025-02-14", kind="proration"),
            _inv("INV-2025-0301", "2025-03", 99.0, "open", "2025-03-01"),
        ],
    },
    "A-1016": {
        "name": "Omar Haddad",
        "email": "omar.haddad@example.com",
        "plan": "Team",
        "billing_cycle": "monthly",
        "contract_price_usd": 89.0,
        "invoices": [
            _inv("INV-2025-0109", "2025-01", 99.0, "paid", "2025-01-09"),
            _inv("INV-2025-0209", "2025-02", 99.0, "paid", "2025-02-09"),
        ],
    },
    "A-1017": {
        "name": "Lucia Gomez",
        "email": "lucia.gomez@example.com",
        "plan": "Business",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0304", "2025-03", 199.0, "paid", "2025-03-04")],
    },
    "A-1018": {
        "name": "Tomasz Nowak",
        "email": "tomasz.nowak@example.com",
        "plan": "Business",
        "billing_cycle": "annual",
        "renews_on": "2025-04-01",
        "invoices": [_inv("INV-2024-0401", "2024-04/2025-03", 2388.0, "paid", "2024-04-01")],
    },
    "A-1019": {
        "name": "Beatriz Alves",
        "email": "beatriz.alves@example.com",
        "plan": "Pro",
        "billing_cycle": "monthly",
        "invoices": [_inv("INV-2025-0311", "2025-03", 49.0, "open", "2025-03-11")],
    },
}

# Refunds above this need a supervisor; `request_approval` denies them.
SELF_SERVICE_REFUND_LIMIT_USD = 100.0


def _short_id(prefix: str, *parts: str, digits: int = 5) -> str:
    h = hashlib.sha256("|".join(parts).encode()).hexdigest()
    return f"{prefix}{int(h[:8], 16) % 10**digits:0{digits}d}"


class Backend:
    """The helpdesk, billing and CRM systems the agent's tools talk to."""

    def __init__(self, case_id: str, metadata: dict):
        self.case_id = case_id
        self.staging = metadata.get("environment") == "staging"
        self.faults = set(metadata.get("faults", []))
        self._invoice_calls = 0
        self._calls = 0
        self._flake_seed = os.environ.get("AGENT_FLAKE_SEED", "")
        self.state = {
            "env": {"staging": self.staging, "region": "eu-west-1"},
            "conversation": {
                "id": _short_id("CONV-", case_id, digits=6),
                "status": "open",
                "labels": [],
                "summary": None,
            },
            "refunds": [],
            "tickets": [],
            "handoffs": [],
        }

    # -- tools -------------------------------------------------------------

    def call(self, name: str, args: dict):
        handler = getattr(self, f"tool_{name}", None)
        if handler is None:
            raise ToolError("unknown_tool", f"no tool named {name!r}")
        self._calls += 1
        if self._flake_seed and name in FLAKY_TOOLS:
            key = f"{self._flake_seed}|{self.case_id}|{name}|{self._calls}".encode()
            if int(hashlib.sha256(key).hexdigest()[:8], 16) / 2**32 < FLAKE_RATE:
                raise ToolError("http_503", "upstream returned 503 Service Unavailable (transient)")
        return handler(args)

    def _account(self, account_id):
        account = ACCOUNTS.get(account_id)
        if account is None:
            raise ToolError("not_found", f"account {account_id} not found")
        return account

    def tool_lookup_account(self, args):
        account_id = args["account_id"]
        a = self._account(account_id)
        open_total = round(sum(i["amount_usd"] for i in a["invoices"] if i["status"] == "open"), 2)
        out = {
            "account_id": account_id,
            "name": a["name"],
            "email": a["email"],
            "status": "active",
            "plan": a["plan"],
            "billing_cycle": a["billing_cycle"],
            "features": PLANS[a["plan"]]["features"],
            "balance_usd": open_total,
        }
        for optional in ("renews_on", "contract_price_usd"):
            if optional in a:
                out[optional] = a[optional]
        return out

    def tool_get_invoices(self, args):
        self._invoice_calls += 1
        if "invoices_timeout_once" in self.faults and self._invoice_calls == 1:
            raise ToolError("timeout", "billing API did not answer within 5000 ms", duration_ms=5000)
        a = self._account(args["account_id"])
        wanted = args.get("status", "all")
        invoices = [i for i in a["invoices"] if wanted == "all" or i["status"] == wanted]
        limit = args.get("limit")
        if isinstance(limit, int):
            invoices = invoices[-limit:]
        return {"account_id": args["account_id"], "invoices": copy.deepcopy(invoices)}

    def tool_get_payment_history(self, args):
        a = self._account(args["account_id"])
        payments = [
            {"invoice_id": i["invoice_id"], "amount_usd": i["amount_usd"], "paid_on": i["due_date"], "method": "card"}
            for i in a["invoices"]
            if i["status"] == "paid"
        ]
        return {"account_id": args["account_id"], "payments": payments[-args.get("months", 3):]}

    def tool_request_approval(self, args):
        amount = float(args["amount_usd"])  # lenient: the approval service coerces strings
        approved = amount <= SELF_SERVICE_REFUND_LIMIT_USD
        out = {"approved": approved, "approver": "billing-supervisor-bot", "limit_usd": SELF_SERVICE_REFUND_LIMIT_USD}
        if approved:
            out["approval_id"] = _short_id("APR-", self.case_id, args["account_id"], str(amount))
        else:
            out["reason"] = f"amount exceeds the ${SELF_SERVICE_REFUND_LIMIT_USD:.0f} self-service limit"
        return out

    def tool_issue_refund(self, args):
        amount = args.get("amount_usd")
        if not isinstance(amount, (int, float)) or isinstance(amount, bool):
            self.state["refunds"].append(
                {"invoice_id": args.get("invoice_id"), "amount_usd": amount, "status": "rejected"}
            )
            raise ToolError(
                "invalid_argument", f"amount_usd must be a number, got {type(amount).__name__} {amount!r}"
            )
        self._account(args["account_id"])
        refund_id = _short_id("RF-", self.case_id, args["invoice_id"], str(amount), digits=6)
        status = "pending" if self.staging else "issued"
        self.state["refunds"].append(
            {"refund_id": refund_id, "invoice_id": args["invoice_id"], "amount_usd": amount, "status": status}
        )
        out = {"refund_id": refund_id, "status": status, "amount_usd": amount}
        if self.staging:
            out["note"] = "billing API is read-only in staging; refund queued for replay in production"
        else:
            out["expected_settlement_days"] = 5
        return out

    def tool_create_ticket(self, args):
        if "helpdesk_unavailable" in self.faults:
            raise ToolError("http_503", "helpdesk API returned 503 Service Unavailable")
        ticket_id = _short_id("TCK-", self.case_id, args["subject"])
        ticket = {
            "ticket_id": ticket_id,
            "queue": args["queue"],
            "priority": args["priority"],
            "labels": list(args.get("labels", [])),
            "status": "open",
        }
        self.state["tickets"].append(ticket)
        # The helpdesk syncs the follow-up ticket's labels onto the conversation.
        self.state["conversation"]["labels"] = list(args.get("labels", []))
        return {"ticket_id": ticket_id, "queue": args["queue"], "status": "open"}

    def tool_escalate_to_human(self, args):
        handoff_id = _short_id("HO-", self.case_id, args["ticket_id"])
        self.state["handoffs"].append({"handoff_id": handoff_id, "ticket_id": args["ticket_id"]})
        return {"handoff_id": handoff_id, "queue": "tier2-humans", "estimated_wait_minutes": 12}

    # -- platform hooks (not tools) ----------------------------------------

    def close_conversation(self, outcome: str, summary: str | None, default_labels: list[str]):
        """The helpdesk integration closes the conversation after the final answer."""
        if "helpdesk_unavailable" in self.faults:
            return
        conv = self.state["conversation"]
        conv["status"] = "escalated" if self.state["handoffs"] else outcome
        if not conv["labels"]:
            conv["labels"] = list(default_labels)
        if outcome != "pending_customer":
            conv["summary"] = summary
