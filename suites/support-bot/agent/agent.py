#!/usr/bin/env python3
"""Example customer-support agent for the `support-bot` suite.

Standard library only, no LLM: a deterministic scripted policy
(`policy.py`) plays the model, a simulated back office (`backend.py`)
plays the tools, and `telemetry.py` records what happened as one OTLP/JSON
document with OpenTelemetry GenAI spans.

Contract (agenteval-gate run mode, DESIGN §11):
  argv   --input FILE --trace-out FILE [--evidence-out FILE] [--workdir DIR]
         (defaults: AGENTEVAL_INPUT_FILE, AGENTEVAL_TRACE_FILE,
         AGENTEVAL_EVIDENCE_FILE, AGENTEVAL_WORKDIR)
  input  JSON {"case_id", "input", "tags", "metadata"}; `input` is
         {"message": "..."} or the message string itself
  output the trace file (OTLP/JSON `resourceSpans`), the tier-1 evidence
         (`evidence.py`: helpdesk and billing state after the conversation)
         and `<workdir>/backend_state.json` (the raw back-office state)
  exit   0 when the conversation ran (even if tools failed), 2 on a usage
         error, 1 if the agent itself crashed
  env    AGENT_VARIANT=baseline|regressed|flaky|flaky-regressed (default
         baseline); AGENTEVAL_TRIAL (the trial number, default 0) seeds the
         flaky variants' draws
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from backend import Backend, ToolError  # noqa: E402
from evidence import dumps, evidence_of, normalized  # noqa: E402
from policy import ACCOUNT_RE, Result, Step, classify, specialist_policy, support_policy  # noqa: E402
from telemetry import (  # noqa: E402
    SPAN_KIND_CLIENT,
    SPAN_KIND_INTERNAL,
    Recorder,
    compact,
    estimate_tokens,
)

AGENT_VERSION = {"baseline": "0.3.0", "regressed": "0.4.0-rc.1", "flaky": "0.3.0", "flaky-regressed": "0.4.0-rc.2"}
REQUEST_MODEL = "gpt-4o-mini"
RESPONSE_MODEL = "gpt-4o-mini-2024-07-18"

SYSTEM_PROMPTS = {
    "support_agent": (
        "You are the Acme Cloud support assistant. Verify the customer's account with lookup_account "
        "before discussing it. Every refund needs request_approval first; refunds above $100 go to a "
        "supervisor. Open a ticket before handing a conversation to a human. Be concise and polite."
    ),
    "billing_specialist": (
        "You are a billing specialist. Analyse invoices and payments and report findings to the support "
        "assistant. You never issue refunds yourself."
    ),
}

TOOL_DESCRIPTIONS = {
    "lookup_account": "Fetch a customer account by id.",
    "get_invoices": "List an account's invoices, optionally filtered by status.",
    "get_payment_history": "List an account's recent payments.",
    "request_approval": "Ask a supervisor to approve a refund.",
    "issue_refund": "Refund (part of) an invoice.",
    "create_ticket": "Open a follow-up ticket in a helpdesk queue.",
    "escalate_to_human": "Hand the conversation to a human agent.",
    "consult_billing_specialist": "Ask the billing specialist sub-agent to analyse an account.",
}

# Simulated latencies in milliseconds (lo, hi).
TOOL_LATENCY = {
    "lookup_account": (60, 180),
    "get_invoices": (90, 320),
    "get_payment_history": (80, 250),
    "request_approval": (150, 600),
    "issue_refund": (200, 700),
    "create_ticket": (120, 400),
    "escalate_to_human": (100, 300),
}


def text_part(text):
    return {"type": "text", "content": text}


class Runner:
    def __init__(self, recorder: Recorder, backend: Backend, conversation_id: str):
        self.rec = recorder
        self.backend = backend
        self.conversation_id = conversation_id

    def invoke_agent(self, name: str, parent, policy, user_text: str, description: str):
        rec = self.rec
        span = rec.start(
            f"invoke_agent {name}",
            SPAN_KIND_INTERNAL,
            parent,
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.provider.name": "openai",
                "gen_ai.agent.name": name,
                "gen_ai.agent.id": "asst_" + name.replace("_", "")[:12],
                "gen_ai.agent.description": description,
                "gen_ai.request.model": REQUEST_MODEL,
                "gen_ai.conversation.id": self.conversation_id,
            },
        )
        messages = [{"role": "user", "parts": [text_part(user_text)]}]
        step = next(policy)
        final = None
        while True:
            call_ids = [rec.call_id() for _ in step.calls]
            self.chat(name, span, messages, step, call_ids)
            if step.final:
                final = step
                break
            if step.handoff:
                answer = self.invoke_agent(
                    step.handoff,
                    span,
                    specialist_policy(step.handoff_question, ACCOUNT_RE.search(step.handoff_question).group(0)),
                    step.handoff_question,
                    "Billing specialist sub-agent",
                )
                messages.append(
                    {"role": "assistant", "name": step.handoff, "parts": [text_part(answer.text)]}
                )
                step = policy.send([Result(ok=True, value={"answer": answer.text})])
                continue
            messages.append(
                {
                    "role": "assistant",
                    "parts": ([text_part(step.text)] if step.text else [])
                    + [
                        {"type": "tool_call", "id": cid, "name": c.name, "arguments": c.arguments}
                        for cid, c in zip(call_ids, step.calls)
                    ],
                }
            )
            results = []
            for cid, call in zip(call_ids, step.calls):
                result = self.execute_tool(name, span, cid, call)
                results.append(result)
                response = result.value if result.ok else {"error": result.error}
                messages.append(
                    {"role": "tool", "parts": [{"type": "tool_call_response", "id": cid, "response": response}]}
                )
            step = policy.send(results)
        rec.end(span)
        return final

    def chat(self, agent: str, parent, messages: list, step: Step, call_ids: list):
        rec = self.rec
        span = rec.start(
            f"chat {REQUEST_MODEL}",
            SPAN_KIND_CLIENT,
            parent,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.agent.name": agent,
                "gen_ai.request.model": REQUEST_MODEL,
                "gen_ai.request.temperature": 0.0,
                "gen_ai.conversation.id": self.conversation_id,
                "server.address": "api.openai.com",
            },
        )
        parts = [text_part(step.text)] if step.text else []
        finish = "tool_call" if step.calls else "stop"
        output_calls = [
            {"type": "tool_call", "id": cid, "name": c.name, "arguments": c.arguments}
            for cid, c in zip(call_ids, step.calls)
        ]
        output = [{"role": "assistant", "parts": parts + output_calls, "finish_reason": finish}]
        system = [text_part(SYSTEM_PROMPTS[agent])]
        input_text = compact(system) + compact(messages)
        output_text = compact(output)
        thinking_ms = 350 + 9 * estimate_tokens(output_text)
        rec.advance_ms(thinking_ms, thinking_ms + 700)
        span.set_attr("gen_ai.response.id", rec.response_id())
        span.set_attr("gen_ai.response.model", RESPONSE_MODEL)
        span.set_attr("gen_ai.response.finish_reasons", ["stop" if finish == "stop" else "tool_calls"])
        span.set_attr("gen_ai.usage.input_tokens", estimate_tokens(input_text))
        span.set_attr("gen_ai.usage.output_tokens", estimate_tokens(output_text))
        span.set_attr("gen_ai.system_instructions", compact(system))
        span.set_attr("gen_ai.input.messages", compact(messages))
        span.set_attr("gen_ai.output.messages", output_text)
        rec.end(span)

    def execute_tool(self, agent: str, parent, call_id: str, call) -> Result:
        rec = self.rec
        span = rec.start(
            f"execute_tool {call.name}",
            SPAN_KIND_INTERNAL,
            parent,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.agent.name": agent,
                "gen_ai.tool.name": call.name,
                "gen_ai.tool.type": "function",
                "gen_ai.tool.description": TOOL_DESCRIPTIONS[call.name],
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.call.arguments": compact(call.arguments),
            },
        )
        if call.name == "consult_billing_specialist":
            question = f"{call.arguments['question']} Account {call.arguments['account_id']}."
            answer = self.invoke_agent(
                "billing_specialist",
                span,
                specialist_policy(question, call.arguments["account_id"]),
                question,
                "Billing specialist sub-agent",
            )
            result = Result(ok=True, value={"agent": "billing_specialist", "answer": answer.text})
            span.set_attr("gen_ai.tool.call.result", compact(result.value))
            rec.end(span)
            return result
        try:
            value = self.backend.call(call.name, call.arguments)
            rec.advance_ms(*TOOL_LATENCY[call.name])
            span.set_attr("gen_ai.tool.call.result", compact(value))
            result = Result(ok=True, value=value)
        except ToolError as e:
            if e.duration_ms:
                rec.advance_ms(e.duration_ms)
            else:
                rec.advance_ms(*TOOL_LATENCY[call.name])
            span.set_attr("gen_ai.tool.call.result", compact({"error": e.message}))
            span.fail(e.kind, e.message)
            result = Result(ok=False, error=e.message)
        rec.end(span)
        return result


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--input", default=os.environ.get("AGENTEVAL_INPUT_FILE"))
    p.add_argument("--trace-out", default=os.environ.get("AGENTEVAL_TRACE_FILE"))
    p.add_argument("--evidence-out", default=os.environ.get("AGENTEVAL_EVIDENCE_FILE"))
    p.add_argument("--workdir", default=os.environ.get("AGENTEVAL_WORKDIR"))
    args = p.parse_args(argv)
    if not args.input or not args.trace_out:
        p.error("--input and --trace-out (or AGENTEVAL_INPUT_FILE / AGENTEVAL_TRACE_FILE) are required")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    variant = os.environ.get("AGENT_VARIANT", "baseline")
    if variant not in AGENT_VERSION:
        print(f"agent.py: unknown AGENT_VARIANT {variant!r} ({'|'.join(AGENT_VERSION)})", file=sys.stderr)
        return 2
    try:
        trial = int(os.environ.get("AGENTEVAL_TRIAL", "0"))
    except ValueError:
        print("agent.py: AGENTEVAL_TRIAL must be a number", file=sys.stderr)
        return 2
    case = json.loads(Path(args.input).read_text(encoding="utf-8"))
    case_id = case.get("case_id") or os.environ.get("AGENTEVAL_CASE_ID") or "case"
    raw = case.get("input")
    message = raw.get("message", "") if isinstance(raw, dict) else str(raw or "")
    metadata = case.get("metadata") or {}

    backend = Backend(case_id, metadata)
    conversation_id = backend.state["conversation"]["id"]
    rec = Recorder(case_id, variant)
    runner = Runner(rec, backend, conversation_id)
    final = runner.invoke_agent(
        "support_agent",
        None,
        support_policy(message, variant, case_id, trial),
        message,
        "Acme Cloud customer-support assistant",
    )
    summary = final.text if len(final.text) <= 160 else final.text[:157] + "..."
    backend.close_conversation(final.outcome, summary, ["support-bot", classify(message)])

    environment = "staging" if backend.staging else "production"
    doc = rec.document(
        {
            "service.name": "support-bot",
            "service.version": AGENT_VERSION[variant],
            "deployment.environment.name": environment,
            "telemetry.sdk.language": "python",
            "telemetry.sdk.name": "support-bot-recorder",
            "telemetry.sdk.version": "1.0.0",
        },
        "support_bot.agent",
        AGENT_VERSION[variant],
    )
    trace_out = Path(args.trace_out)
    trace_out.parent.mkdir(parents=True, exist_ok=True)
    trace_out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if args.evidence_out:
        evidence_out = Path(args.evidence_out)
        evidence_out.parent.mkdir(parents=True, exist_ok=True)
        evidence_out.write_bytes(dumps(evidence_of(normalized(backend.state))))
    if args.workdir:
        workdir = Path(args.workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "backend_state.json").write_text(
            json.dumps(backend.state, indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
