#!/usr/bin/env python3
"""Large synthetic inputs for the resource bench (bench/resources.sh).

    gen_resources.py otel-sdk N OUT      N spans, OTel SDK `to_json()` JSONL, one trace:
                                         a root agent, then model calls and tool runs
                                         (every 4th span a child of the previous one,
                                         the rest children of the root)
    gen_resources.py otel-chain N OUT    N spans, each the child of the previous one
    gen_resources.py chat N OUT          N messages in one `{"messages": [...]}` document:
                                         user, assistant with a tool call, tool result, ...
    gen_resources.py telemetry N OUT     N workflow-telemetry events (JSONL), every 8th a
                                         `Task` launching a sub-agent whose calls follow
    gen_resources.py otlp N OUT [T]  N spans of OTLP/JSON (one `resourceSpans` document) over
                                         T traces (default 1): per trace an agent root, then
                                         model calls with GenAI messages (~1.5 KB a span) and
                                         tool runs with arguments and results (issue 22 item 7's
                                         shape: 100 MB is about 66k spans)
    gen_resources.py compare C DIR       a copy of suites/support-bot (24 cases) whose
                                         suite has C deterministic checkpoints

Standard library only; the output is a pure function of the arguments.
"""

import json
import os
import shutil
import sys

TOOLS = ["lookup_account", "get_invoices", "get_payment_history", "create_ticket"]


def otel_sdk(n, out, chain=False):
    trace = "0x6c80880dbeb609e2"
    t0 = 1_715_204_770_000_000_000
    with open(out, "w") as f:
        for i in range(n):
            span_id = "0x%x" % (i + 1)
            if i == 0:
                parent = None
            elif chain or i % 4 == 0:
                parent = "0x%x" % i
            else:
                parent = "0x1"
            if i == 0:
                name, attrs = "agent.run", {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "bot"}
            elif i % 2 == 1:
                attrs = {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.usage.input_tokens": 100 + i % 50,
                }
                name = "chat"
            else:
                tool = TOOLS[i % len(TOOLS)]
                attrs = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": tool,
                }
                name = tool
            span = {
                "name": name,
                "context": {"trace_id": trace, "span_id": span_id},
                "parent_id": parent,
                "start_time": t0 + i * 1000,
                "end_time": t0 + (2 * n - i) * 1000 if chain or i == 0 else t0 + i * 1000 + 900,
                "attributes": attrs,
            }
            f.write(json.dumps(span, separators=(",", ":")))
            f.write("\n")


def otlp(n, out, traces=1):
    t0 = 1_715_204_770_000_000_000

    def attr(k, v):
        if isinstance(v, int):
            return {"key": k, "value": {"intValue": str(v)}}
        return {"key": k, "value": {"stringValue": v}}

    per = max(1, n // traces)
    spans = []
    for i in range(n):
        t, j = divmod(i, per)
        t = min(t, traces - 1)
        j = i - t * per
        trace_id = "%032x" % (t + 1)
        span_id = "%016x" % (i + 1)
        root = "%016x" % (t * per + 1)
        start = t0 + i * 1_000_000
        if j == 0:
            name = "invoke_agent bot"
            attrs = [attr("gen_ai.operation.name", "invoke_agent"), attr("gen_ai.agent.name", "bot")]
            parent = ""
        elif j % 2 == 1:
            name = "chat gpt-4o"
            question = "Customer %d asks about invoice %d; look up the account and the payments. " % (i, i * 7)
            messages = [
                {"role": "system", "parts": [{"type": "text", "content": "You are a billing assistant. " * 8}]},
                {"role": "user", "parts": [{"type": "text", "content": question * 4}]},
            ]
            answer = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "call_%d" % i,
                                                       "name": TOOLS[i % len(TOOLS)],
                                                       "arguments": json.dumps({"account_id": "acc-%d" % i})}]}]
            attrs = [
                attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.request.model", "gpt-4o"),
                attr("gen_ai.usage.input_tokens", 300 + i % 50),
                attr("gen_ai.usage.output_tokens", 20 + i % 7),
                attr("gen_ai.input.messages", json.dumps(messages)),
                attr("gen_ai.output.messages", json.dumps(answer)),
            ]
            parent = root
        else:
            tool = TOOLS[(i - 1) % len(TOOLS)]
            name = "execute_tool " + tool
            result = {"account_id": "acc-%d" % (i - 1), "status": "active",
                      "invoices": [{"id": "inv-%d-%d" % (i, k), "amount": 10 * k} for k in range(6)]}
            attrs = [
                attr("gen_ai.operation.name", "execute_tool"),
                attr("gen_ai.tool.name", tool),
                attr("gen_ai.tool.call.id", "call_%d" % (i - 1)),
                attr("gen_ai.tool.call.arguments", json.dumps({"account_id": "acc-%d" % (i - 1)})),
                attr("gen_ai.tool.call.result", json.dumps(result)),
            ]
            parent = root
        spans.append({
            "traceId": trace_id, "spanId": span_id, "parentSpanId": parent, "name": name, "kind": 1,
            "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 500_000),
            "attributes": attrs, "status": {"code": 1},
        })
    doc = {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "bench")]},
                              "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def chat(n, out):
    with open(out, "w") as f:
        f.write('{"id":"big-chat","messages":[\n')
        for i in range(n):
            phase = i % 4
            if phase == 0:
                m = {"role": "user", "content": "Question %d: what is my balance on the account, please?" % i}
            elif phase == 1:
                m = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c%d" % i,
                            "type": "function",
                            "function": {"name": TOOLS[i % 4], "arguments": '{"account_id":"A-%04d"}' % (i % 10000)},
                        }
                    ],
                }
            elif phase == 2:
                m = {"role": "tool", "tool_call_id": "c%d" % (i - 1), "content": '{"balance":%d}' % i}
            else:
                m = {"role": "assistant", "content": "Your balance is $%d, due on the first of next month." % i}
            f.write(json.dumps(m, separators=(",", ":")))
            f.write(",\n" if i + 1 < n else "\n")
        f.write("]}\n")


def telemetry(n, out):
    with open(out, "w") as f:
        launcher = None
        for i in range(n):
            ev = {
                "timestamp": "2025-06-02T09:%02d:%02d.%03dZ" % ((i // 60000) % 60, (i // 1000) % 60, i % 1000),
                "session_id": "sess-big",
                "tool_name": "Read",
                "span_type": "parent",
                "trace_id": "evt-%07d" % i,
                "parent_trace_id": None,
                "args": {"file_path": "src/mod_%d.py" % (i % 997)},
                "result": "def f_%d(x):\n    return x + %d\n" % (i, i),
                "duration_ms": 12 + i % 40,
                "status": "ok",
            }
            if i % 8 == 0:
                ev["tool_name"] = "Task"
                ev["args"] = {"subagent_type": "worker-%d" % (i % 3), "prompt": "do part %d" % i}
                launcher = ev["trace_id"]
            elif launcher is not None and i % 8 in (1, 2, 3):
                ev["span_type"] = "child"
                ev["parent_trace_id"] = launcher
                ev["tool_name"] = "Bash"
                ev["args"] = {"command": "pytest -q tests/t_%d.py" % i}
            f.write(json.dumps(ev, separators=(",", ": ")))
            f.write("\n")


TEMPLATES = [
    "sequence: {before: {tool: lookup_account}, then: {kind: llm, final: true}}",
    "sequence: {before: {tool: request_approval}, then: {tool: issue_refund}}",
    "sequence: {count: {of: {tool: lookup_account}, max: 2}}",
    "sequence: {count: {of: {kind: tool, status: error}, max: 0}}",
    "sequence: {never: {tool: issue_refund, agent: billing_specialist}}",
    "sequence: {before: {tool: create_ticket}, then: {tool: escalate_to_human}}",
    "evidence_sources: [helpdesk]\n    assert: {path: /ticket/status, in: [resolved, escalated, pending_customer]}",
    "evidence_sources: [helpdesk]\n    assert: {path: /ticket/labels, contains: support-bot}",
]


def compare(c, out):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    src = os.path.join(root, "suites", "support-bot")
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "suites"))
    dst = os.path.join(out, "suites", "support-bot")
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("agent", "judge-cache", "golden.yaml", "record.py"))
    text = open(os.path.join(src, "suite.yaml")).read()
    head = text[: text.index("\ncheckpoints:")]
    # Replay only: no agent command, no judge; no constraint naming a
    # checkpoint of the original suite.
    kept, in_agent = [], False
    for line in head.split("\n"):
        if line.startswith("agent:") or line.startswith("environment_constraints:"):
            in_agent = True
            continue
        if in_agent and line.startswith(" "):
            continue
        in_agent = False
        kept.append(line)
    head = "\n".join(kept)
    lines = [head, "", "checkpoints:"]
    for i in range(c):
        body = TEMPLATES[i % len(TEMPLATES)]
        if not body.startswith("evidence_sources"):
            body = "evidence_sources: [trace]\n    " + body
        lines.append("  - id: G%05d" % i)
        lines.append("    tier: %d" % (1 if body.startswith("evidence_sources: [helpdesk]") else 2))
        lines.append("    instruction: Generated checkpoint %d" % i)
        lines.append("    severity: %s" % ["low", "medium", "high", "critical"][i % 4])
        lines.append("    " + body)
    tail = text[text.index("\ntiers:") :]
    # Gates, tiers, pricing and cases as in support-bot; no judge section and
    # no gate on a checkpoint that is not here.
    tail = tail[: tail.index("\njudge:")] + tail[tail.index("\npricing:") :]
    tail = "\n".join(line for line in tail.split("\n") if "checkpoint:P2-02" not in line)
    with open(os.path.join(dst, "suite.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n" + tail)


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    {
        "otlp": lambda: otlp(n, out, int(sys.argv[4]) if len(sys.argv) > 4 else 1),
        "otel-sdk": lambda: otel_sdk(n, out),
        "otel-chain": lambda: otel_sdk(n, out, chain=True),
        "chat": lambda: chat(n, out),
        "telemetry": lambda: telemetry(n, out),
        "compare": lambda: compare(n, out),
    }[kind]()


if __name__ == "__main__":
    main()
