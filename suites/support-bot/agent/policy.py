"""The scripted "LLM" of the example support agent.

No model is called. A policy is a generator: it yields a `Step` (what the
model would have said: text, tool calls, a hand-off, or the final answer)
and receives the list of `Result`s of the tool calls it asked for. The
decisions depend only on the customer's message and the tool results, so
the same case always produces the same conversation.

`AGENT_VARIANT=regressed` switches on two known regressions (see
README.md, "The regressed variant"):
  * billing read questions (balance, invoices, JSON balance) are answered
    from `get_invoices` without calling `lookup_account` first;
  * refunds under $50 are issued without `request_approval` (and so
    without an `approval_id`).

`AGENT_VARIANT=flaky` is the baseline agent made stochastic the way a
real model is (see README.md, "The flaky variant"): in the cases of
`FLAKY_SKIP_LOOKUP` a trial sometimes skips the account lookup, decided by
a seeded draw from (`FLAKY_SEED`, the variant, the case id, the trial
number `AGENTEVAL_TRIAL`); every other case is stable. `flaky-regressed`
adds a regression that only shows up in some trials: a refund under $50
skips `request_approval` with probability `FLAKY_REGRESSED_SKIP_APPROVAL`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

ACCOUNT_RE = re.compile(r"\bA-\d{4}\b")
DOLLARS_RE = re.compile(r"\$(\d+(?:\.\d{1,2})?)")
WORD_AMOUNT_RE = re.compile(r"\b(\d+(?:\.\d+)?)\s+dollars\b")

BILLING_READ_INTENTS = {"balance", "invoices", "json_balance"}
REGRESSED_AUTO_APPROVE_BELOW_USD = 50.0

# The flaky variants' seeded noise. Each variant draws on its own (a baseline
# run and a pull request's run do not share their noise), per case and trial.
FLAKY_SEED = "support-bot-flaky-1"
FLAKY_VARIANTS = {"flaky", "flaky-regressed"}
# Case id -> chance that a trial of this billing read skips `lookup_account`.
FLAKY_SKIP_LOOKUP = {"sb-002": 0.5, "sb-012": 0.5, "sb-024": 0.4}
# flaky-regressed: chance that a trial of a refund under $50 skips `request_approval`.
FLAKY_REGRESSED_SKIP_APPROVAL = 0.5


def draw(variant: str, case_id: str, trial: int, what: str) -> float:
    """A uniform number in [0, 1) from the seed, the variant, the case, the trial and `what`."""
    key = f"{FLAKY_SEED}|{variant}|{case_id}|{trial}|{what}".encode()
    return int(hashlib.sha256(key).hexdigest()[:8], 16) / 2**32


@dataclass
class Call:
    name: str
    arguments: dict


@dataclass
class Step:
    text: str = ""
    calls: list = field(default_factory=list)
    handoff: str | None = None
    handoff_question: str | None = None
    final: bool = False
    outcome: str = "resolved"  # resolved | escalated | pending_customer


@dataclass
class Result:
    ok: bool
    value: object = None
    error: str | None = None


def classify(message: str) -> str:
    t = message.lower()
    if "json" in t:
        return "json_balance"
    if any(w in t for w in ("human", "manager", "real person")):
        return "escalation"
    if "dispute" in t:
        return "dispute"
    if "prorat" in t:
        return "proration"
    if any(w in t for w in ("refund", "waive", "charged twice", "overcharged")):
        return "refund"
    if "cancel" in t:
        return "cancellation"
    if any(w in t for w in ("crash", "password", "error", "bug", "not working", "never arrives")):
        return "technical"
    if "invoice" in t:
        return "invoices"
    if any(w in t for w in ("sso", "include")):
        return "plan_question"
    if any(w in t for w in ("balance", "owe", "due", "renew")):
        return "balance"
    return "general"


PLANS = {
    "balance": "check the open invoices, then answer with the balance and due date",
    "invoices": "list the invoices, then answer with their numbers",
    "json_balance": "check the open invoices, then answer in JSON",
    "refund": "find the invoice, get approval, issue the refund, then confirm",
    "technical": "open a ticket with the technical team, then share its number",
    "escalation": "open an escalation ticket and hand the conversation to a human",
    "cancellation": "open a cancellation ticket for the end of the period",
    "dispute": "ask the billing specialist to review the invoices, then open a dispute ticket",
    "proration": "hand the proration question to the billing specialist, then explain",
    "plan_question": "check the plan's features, then answer",
    "general": "check the account, then answer",
}


def money(x) -> str:
    return f"${float(x):,.2f}"


def first_name(account: dict | None) -> str:
    return f"Hi {account['name'].split()[0]}, " if account else ""


def support_policy(message: str, variant: str, case_id: str = "", trial: int = 0):
    intent = classify(message)
    accounts = list(dict.fromkeys(ACCOUNT_RE.findall(message)))
    if not accounts:
        yield Step(
            text=(
                "Thanks for reaching out! I can only discuss account details once I know your "
                "account number (it looks like A-1234 and is shown under Settings > Billing). "
                "Could you send it?"
            ),
            final=True,
            outcome="pending_customer",
        )
        return

    regressed = variant == "regressed"
    skip_lookup = regressed and intent in BILLING_READ_INTENTS
    if variant in FLAKY_VARIANTS:
        chance = FLAKY_SKIP_LOOKUP.get(case_id, 0.0)
        skip_lookup = intent in BILLING_READ_INTENTS and draw(variant, case_id, trial, "lookup") < chance
        regressed = variant == "flaky-regressed" and (
            draw(variant, case_id, trial, "approval") < FLAKY_REGRESSED_SKIP_APPROVAL
        )
    profiles = {a: None for a in accounts}
    if skip_lookup:
        plan = f"Plan: for {', '.join(accounts)}, {PLANS[intent]}."
    else:
        plan = f"Plan: verify {', '.join(accounts)} with lookup_account, {PLANS[intent]}."
        results = yield Step(text=plan, calls=[Call("lookup_account", {"account_id": a}) for a in accounts])
        for a, r in zip(accounts, results):
            if not r.ok:
                yield Step(
                    text=(
                        f"I couldn't find an account with the number {a}. Could you double-check it? "
                        "You'll find it under Settings > Billing."
                    ),
                    final=True,
                    outcome="pending_customer",
                )
                return
            profiles[a] = r.value
        plan = None

    account_id = accounts[0]
    profile = profiles[account_id]
    flows = {
        "balance": balance_flow,
        "json_balance": balance_flow,
        "invoices": invoices_flow,
        "refund": refund_flow,
        "technical": technical_flow,
        "escalation": escalation_flow,
        "cancellation": cancellation_flow,
        "dispute": dispute_flow,
        "proration": proration_flow,
        "plan_question": plan_question_flow,
        "general": general_flow,
    }
    yield from flows[intent](message, intent, accounts, profiles, profile, plan, regressed)


def call_with_retry(text: str, calls: list):
    """Yield the calls; retry the failed ones once with the same arguments."""
    results = yield Step(text=text, calls=calls)
    failed = [i for i, r in enumerate(results) if not r.ok]
    if failed:
        retry = yield Step(
            text="The billing service did not answer; retrying once.",
            calls=[calls[i] for i in failed],
        )
        for i, r in zip(failed, retry):
            results[i] = r
    return results


def balance_flow(message, intent, accounts, profiles, profile, plan, regressed):
    calls = [Call("get_invoices", {"account_id": a, "status": "open"}) for a in accounts]
    results = yield from call_with_retry(plan or "Checking the open invoices.", calls)
    if not all(r.ok for r in results):
        yield Step(
            text="I'm sorry, our billing system is not responding right now. Please try again in a few minutes.",
            final=True,
        )
        return
    if intent == "json_balance":
        inv = results[0].value["invoices"]
        body = {
            "account_id": accounts[0],
            "balance_usd": round(sum(i["amount_usd"] for i in inv), 2),
            "due_date": min((i["due_date"] for i in inv), default=None),
            "currency": "USD",
        }
        yield Step(text=json.dumps(body), final=True)
        return
    if len(accounts) > 1:
        lines, total = [], 0.0
        for a, r in zip(accounts, results):
            amount = sum(i["amount_usd"] for i in r.value["invoices"])
            total += amount
            lines.append(f"{a}: {money(amount)}")
        yield Step(
            text=f"Here are the open balances: {'; '.join(lines)}. The total across the three accounts is {money(total)}.",
            final=True,
        )
        return
    inv = results[0].value["invoices"]
    if not inv:
        if profile and "renews_on" in profile:
            text = (
                f"{first_name(profile)}you have no open balance. Your {profile['plan']} plan "
                f"({profile['billing_cycle']}) renews on {profile['renews_on']}."
            )
        else:
            text = "You have no open balance at the moment."
        yield Step(text=text, final=True)
        return
    due = min(inv, key=lambda i: i["due_date"])
    total = sum(i["amount_usd"] for i in inv)
    yield Step(
        text=(
            f"{first_name(profile)}your current balance is {money(total)}, due on {due['due_date']} "
            f"(invoice {due['invoice_id']}). You can pay it under Billing > Invoices."
        ),
        final=True,
    )


def invoices_flow(message, intent, accounts, profiles, profile, plan, regressed):
    unpaid = "unpaid" in message.lower() or "open" in message.lower()
    args = {"account_id": accounts[0], "status": "open" if unpaid else "all", "limit": 12}
    results = yield from call_with_retry(plan or "Fetching the invoices.", [Call("get_invoices", args)])
    r = results[0]
    if not r.ok:
        yield Step(text="I'm sorry, our billing system is not responding right now.", final=True)
        return
    listed = ", ".join(f"{i['invoice_id']} ({money(i['amount_usd'])}, {i['status']})" for i in r.value["invoices"])
    what = "unpaid invoices" if unpaid else "invoices this year"
    yield Step(
        text=f"{first_name(profile)}your {what}: {listed}. I've emailed PDF copies to {profile['email'] if profile else 'the billing contact'}.",
        final=True,
    )


def pick_refund(message: str, invoices: list):
    """The invoice and amount the customer wants back (amount may be a string: see README)."""
    t = message.lower()
    invoice = None
    if "twice" in t:
        seen = {}
        for i in invoices:
            key = (i["period"], i["amount_usd"], i["kind"])
            if key in seen:
                invoice = i
                break
            seen[key] = i
    elif "late fee" in t:
        invoice = next((i for i in invoices if i["kind"] == "late_fee"), None)
    elif "add-on" in t:
        invoice = next((i for i in invoices if i["kind"] == "add_on"), None)
    elif "march" in t:
        invoice = next((i for i in invoices if i["period"] == "2025-03"), None)
    if invoice is None:
        invoice = invoices[-1]
    m = DOLLARS_RE.search(message)
    if m:
        amount = float(m.group(1))
    else:
        w = WORD_AMOUNT_RE.search(message)
        # Known bug, kept on purpose: an amount written "40 dollars" stays a string.
        amount = w.group(1) if w else invoice["amount_usd"]
    return invoice, amount


def refund_flow(message, intent, accounts, profiles, profile, plan, regressed):
    account_id = accounts[0]
    results = yield Step(
        text=plan or "Let me find the invoice.",
        calls=[Call("get_invoices", {"account_id": account_id, "status": "all"})],
    )
    invoice, amount = pick_refund(message, results[0].value["invoices"])
    reason = "duplicate charge" if "twice" in message.lower() else "customer request"
    if "late fee" in message.lower():
        reason = "late fee waiver"
    approval_id = None
    if not (regressed and float(amount) < REGRESSED_AUTO_APPROVE_BELOW_USD):
        results = yield Step(
            text=f"Requesting approval for a refund of {amount} on {invoice['invoice_id']}.",
            calls=[
                Call("request_approval", {"account_id": account_id, "amount_usd": amount, "reason": reason})
            ],
        )
        approval = results[0].value
        if not approval["approved"]:
            yield from escalate(
                account_id,
                f"Refund of {money(amount)} on {invoice['invoice_id']} needs a supervisor",
                f"Customer asks for a refund of {money(amount)} ({reason}); above the self-service limit.",
                ["support-bot", "refund", "escalation"],
                lambda t, h: (
                    f"{first_name(profile)}refunds above $100 need a supervisor, so I've escalated your request "
                    f"(ticket {t}). A supervisor will review it and reply within one business day."
                ),
            )
            return
        approval_id = approval["approval_id"]
    args = {"account_id": account_id, "invoice_id": invoice["invoice_id"], "amount_usd": amount, "reason": reason}
    if approval_id:
        args["approval_id"] = approval_id
    results = yield Step(text="Approved; issuing the refund." if approval_id else "Issuing the refund.",
                         calls=[Call("issue_refund", args)])
    r = results[0]
    if not r.ok:
        results = yield Step(
            text="The refund was rejected by the billing API; opening a ticket for the billing team.",
            calls=[
                Call(
                    "create_ticket",
                    {
                        "account_id": account_id,
                        "queue": "billing",
                        "subject": f"Manual refund needed for {invoice['invoice_id']}",
                        "description": f"Automatic refund failed: {r.error}",
                        "priority": "normal",
                        "labels": ["support-bot", "refund"],
                    },
                )
            ],
        )
        yield Step(
            text=(
                f"{first_name(profile)}I couldn't process the refund automatically, so I've opened ticket "
                f"{results[0].value['ticket_id']} for our billing team. They'll confirm the amount within two business days."
            ),
            final=True,
        )
        return
    refund = r.value
    if refund["status"] == "pending":
        text = (
            f"{first_name(profile)}your refund of {money(amount)} for invoice {invoice['invoice_id']} is queued "
            f"(refund {refund['refund_id']}) and will be processed shortly."
        )
    else:
        text = (
            f"{first_name(profile)}I've refunded {money(amount)} for invoice {invoice['invoice_id']} "
            f"(refund {refund['refund_id']}). It will reach your card within {refund['expected_settlement_days']} business days."
        )
    yield Step(text=text, final=True)


def escalate(account_id, subject, description, labels, answer):
    results = yield Step(
        text="Opening an escalation ticket.",
        calls=[
            Call(
                "create_ticket",
                {
                    "account_id": account_id,
                    "queue": "escalations",
                    "subject": subject,
                    "description": description,
                    "priority": "high",
                    "labels": labels,
                },
            )
        ],
    )
    ticket_id = results[0].value["ticket_id"]
    results = yield Step(
        text="Handing the conversation to a human agent.",
        calls=[Call("escalate_to_human", {"ticket_id": ticket_id, "reason": subject, "priority": "high"})],
    )
    yield Step(text=answer(ticket_id, results[0].value), final=True, outcome="escalated")


def technical_flow(message, intent, accounts, profiles, profile, plan, regressed):
    t = message.lower()
    area = "mobile-app" if "app" in t else "auth" if "password" in t else "api"
    priority = "high" if area == "api" else "normal"
    call = Call(
        "create_ticket",
        {
            "account_id": accounts[0],
            "queue": "technical",
            "subject": message.split(".")[0][:80],
            "description": message,
            "priority": priority,
            # Known gap, kept on purpose: the technical branch forgets the `support-bot` label.
            "labels": ["technical", area],
        },
    )
    results = yield Step(text=plan or "Opening a ticket.", calls=[call])
    if not results[0].ok:
        results = yield Step(text="The helpdesk did not accept the ticket; retrying once.", calls=[call])
    if not results[0].ok:
        yield Step(
            text=(
                f"{first_name(profile)}our ticketing system is having an outage right now, so I couldn't open a ticket. "
                "I've passed your report to the on-call engineer, who will email you within one business day."
            ),
            final=True,
        )
        return
    ticket_id = results[0].value["ticket_id"]
    yield Step(
        text=(
            f"{first_name(profile)}I've opened ticket {ticket_id} with our technical team ({area}, {priority} priority). "
            "You'll get updates by email; replying there adds details to the ticket."
        ),
        final=True,
    )


def escalation_flow(message, intent, accounts, profiles, profile, plan, regressed):
    manager = "manager" in message.lower()
    yield from escalate(
        accounts[0],
        "Customer asks for a manager" if manager else "Customer asks for a human agent",
        message,
        ["support-bot", "escalation"],
        lambda t, h: (
            f"{first_name(profile)}I've asked a manager from our accounts team to contact you (ticket {t}); "
            f"the expected wait is about {h['estimated_wait_minutes']} minutes."
            if manager
            else f"{first_name(profile)}I'm sorry for the trouble. I've handed your conversation to a human agent "
            f"(ticket {t}); the expected wait is about {h['estimated_wait_minutes']} minutes."
        ),
    )


def cancellation_flow(message, intent, accounts, profiles, profile, plan, regressed):
    results = yield Step(
        text=plan or "Opening a cancellation ticket.",
        calls=[
            Call(
                "create_ticket",
                {
                    "account_id": accounts[0],
                    "queue": "accounts",
                    "subject": "Cancel subscription at period end",
                    "description": message,
                    "priority": "normal",
                    "labels": ["support-bot", "cancellation"],
                },
            )
        ],
    )
    yield Step(
        text=(
            f"{first_name(profile)}your {profile['plan']} subscription will be cancelled at the end of the current "
            f"billing period (ticket {results[0].value['ticket_id']}). You keep access until then."
        ),
        final=True,
    )


def dispute_flow(message, intent, accounts, profiles, profile, plan, regressed):
    contract = profile.get("contract_price_usd")
    question = "Customer disputes the charges on the last two invoices."
    if contract is not None:
        question += f" Contracted price is {money(contract)} per month."
    results = yield Step(
        text=plan or "Asking the billing specialist.",
        calls=[Call("consult_billing_specialist", {"account_id": accounts[0], "question": question})],
    )
    finding = results[0].value
    results = yield Step(
        text="Opening a dispute ticket with the specialist's findings.",
        calls=[
            Call(
                "create_ticket",
                {
                    "account_id": accounts[0],
                    "queue": "billing",
                    "subject": "Invoice dispute: billed above contract price",
                    "description": finding["answer"],
                    "priority": "normal",
                    "labels": ["support-bot", "billing", "dispute"],
                },
            )
        ],
    )
    yield Step(
        text=(
            f"{first_name(profile)}our billing specialist reviewed your last two invoices. {finding['answer']} "
            f"I've opened dispute ticket {results[0].value['ticket_id']} so the difference is credited to your account."
        ),
        final=True,
    )


def proration_flow(message, intent, accounts, profiles, profile, plan, regressed):
    findings = yield Step(
        text=plan or "Handing off to the billing specialist.",
        handoff="billing_specialist",
        handoff_question=f"Explain the prorated charge after the plan upgrade on account {accounts[0]}.",
    )
    yield Step(text=f"{first_name(profile)}{findings[0].value['answer']}", final=True)


def plan_question_flow(message, intent, accounts, profiles, profile, plan, regressed):
    has_sso = "sso" in profile["features"]
    if has_sso:
        text = (
            f"{first_name(profile)}yes, your {profile['plan']} plan includes SSO (SAML 2.0). "
            "An admin can enable it under Settings > Security > Single sign-on."
        )
    else:
        text = f"{first_name(profile)}your {profile['plan']} plan doesn't include SSO; it's part of the Business plan."
    yield Step(text=text, final=True)


def general_flow(message, intent, accounts, profiles, profile, plan, regressed):
    yield Step(
        text=f"{first_name(profile)}thanks, I can see your {profile['plan']} account. How can I help you today?",
        final=True,
        outcome="pending_customer",
    )


def specialist_policy(question: str, account_id: str):
    results = yield Step(
        text="Plan: review the invoices and the payment history, then report the findings.",
        calls=[
            Call("get_invoices", {"account_id": account_id, "status": "all"}),
            Call("get_payment_history", {"account_id": account_id, "months": 3}),
        ],
    )
    invoices = results[0].value["invoices"]
    m = re.search(r"Contracted price is \$(\d+(?:\.\d+)?)", question)
    if m:
        contract = float(m.group(1))
        recent = [i for i in invoices if i["kind"] == "subscription"][-2:]
        over = round(sum(i["amount_usd"] - contract for i in recent), 2)
        answer = (
            f"Both {' and '.join(i['invoice_id'] for i in recent)} were billed at {money(recent[0]['amount_usd'])} "
            f"instead of the contracted {money(contract)}, an overcharge of {money(over)} in total."
        )
        yield Step(text=answer, final=True)
        return
    proration = next((i for i in invoices if i["kind"] == "proration"), None)
    if proration is None:
        yield Step(text="I found no prorated charge on this account.", final=True)
        return
    answer = (
        f"the plan upgrade from Pro ($49.00) to Team ($99.00) on 2025-02-14 was prorated: the $50.00 difference for the "
        f"remaining 14 of 28 days in February is {money(proration['amount_usd'])}, billed on {proration['invoice_id']}. "
        "From March you pay the full Team price of $99.00."
    )
    yield Step(text=answer, final=True)
