"""Tier-1 evidence of a support-bot conversation: what an evidence collector
would read from the helpdesk and billing back office after the conversation.

Shared by `agent.py` (which writes it to `--evidence-out` / AGENTEVAL_EVIDENCE_FILE
in run mode) and `record.py` (which records `evidence*/` for replay), so both
give the same bytes.
"""

from __future__ import annotations

import json


def normalized(state: dict) -> dict:
    """The back-office state as `backend_state.json` holds it (keys sorted)."""
    return json.loads(json.dumps(state, sort_keys=True))


def evidence_of(state: dict) -> dict:
    conv = state["conversation"]
    refunds = state["refunds"]
    return {
        "collected_from": ["helpdesk:/conversations", "helpdesk:/tickets", "billing:/refunds"],
        "env": state["env"],
        "ticket": {
            "id": conv["id"],
            "status": conv["status"],
            "labels": conv["labels"],
            "summary": conv["summary"],
        },
        "billing": {
            "refund_status": refunds[-1]["status"] if refunds else "none",
            "refunds": refunds,
        },
        "followup_tickets": state["tickets"],
        "handoffs": state["handoffs"],
    }


def dumps(value) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
