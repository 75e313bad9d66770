#!/usr/bin/env python3
"""A STAND-IN judge: an OpenAI-compatible chat-completions server whose
answers come from a few fixed keyword and number rules, NOT from a language
model. It exists so that the judge pipeline (prompts, HTTP client, cache,
report fields) can be shown and tested on machines without an API key.

Its answers are not judgements. Every answer says so in its notes and
reasoning ("stand-in rule, not a model"), and its model name is
`agenteval-stand-in-rules`. Judge quality must be measured against human
labels with `agenteval-gate calibrate` on a real model.

Usage:
    python3 scripts/stand_in_judge.py [--port 0] [--latency-ms 0]

It prints `listening on http://127.0.0.1:PORT/v1` on its first line, then
serves `POST /v1/chat/completions` until killed. Standard library only.

The rules read the prompts agenteval-gate renders (the built-in templates):
- checkpoint questions: no final answer -> FAIL. "polite"/"next" requirements:
  a polite phrase and a next step -> PASS, polite only -> PARTIAL (criterion 1),
  else FAIL. Other requirements: the answer's numbers (amounts, ids, dates) are
  counted; some found in the trace's tool results -> PASS, numbers none of
  which are in the results -> FAIL, no numbers -> PARTIAL with criterion 1
  (FAIL without criteria). Cites the last `llm` span of the excerpt.
- step questions ("Score: N"): PLAN completeness 4 if the plan is at least 40
  characters else 2, feasibility 4 if it names a listed tool else 3; TOOLSEL
  accuracy 4 if the tool is listed else 1, relevance 4; PARAMGEN correctness 5
  if every id-like value (A-1234, INV-…, APR-…, TCK-…) occurs in the request or
  the parents' outputs else 2, completeness 4; SYNTH faithfulness 5 if every
  number in the answer occurs in the parents' outputs or the request else 2,
  completeness 4 if the answer is at least 60 characters else 2, coherence 4.
- semantic questions: equivalent when at least 80% of the reference's words
  occur in the answer.
- GPA trace questions (seven dimensions, 0-3, one question per case): goal
  fulfillment 0 without a final answer, 3 when some of its numbers occur in
  tool results, 1 when none of them do, 2 when it states none; logical
  consistency 1 when a number of the answer occurs nowhere in the request or
  the trace, else 3; execution efficiency 1 when a tool is called twice with
  the same arguments, 2 past five tool calls, else 3; plan quality (the first
  model turn's output) 0 without one, 1 under 40 characters, 2 when it names
  no tool, else 3; plan adherence 1 when a tool the plan names is never
  called, 2 when a called tool is not in the plan, else 3; tool selection 2
  when one tool is called more than twice, else 3; tool calling 1 when a tool
  call failed, 2 when one has no result, else 3. Each cites the spans it read.
- root-cause questions: the first listed step whose content reports an
  error (an `error:` line, a traceback, a non-zero exit); when that is an
  EXEC, the first step it comes `after`; with no error, the first step. The
  agent is that step's agent, else the first agent listed, else null. A
  mechanical rule: its attribution accuracy means nothing.
"""

import argparse
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "agenteval-stand-in-rules"
LABEL = "stand-in rule, not a model"
NUMBER = re.compile(r"\$?\d[\d,]*(?:\.\d+)?")
ID_LIKE = re.compile(r"\b(?:A|INV|APR|TCK|CONV|RF)-\d+(?:-\d+)*\b")
POLITE = ("thank", "please", "sorry", "happy to", "glad", "apolog", "hi ", "hello")
NEXT = ("will ", "next", "within", "ticket", "follow up", "follow-up", "expect", "let me know", "reach out")


def blocks(text):
    """The fenced data blocks of a prompt: label -> content."""
    out = {}
    for m in re.finditer(r"<<<DATA (\S+) (\w+)>>>\n(.*?)\n<<<END DATA \1 \2>>>", text, re.S):
        out.setdefault(m.group(1), m.group(3))
    return out


def numbers(text):
    """Ids (A-1001, INV-2025-0204) as they are, other numbers by value."""
    out = set(ID_LIKE.findall(text))
    for n in NUMBER.findall(ID_LIKE.sub(" ", text)):
        try:
            out.add("%g" % float(n.strip("$").replace(",", "").rstrip(".")))
        except ValueError:
            pass
    return out


def checkpoint(system, user, structured):
    data = blocks(user)
    answer = data.get("final_answer", "")
    trace = data.get("trace", "")
    req = re.search(r"^Requirement: (.*)$", user, re.M)
    requirement = (req.group(1) if req else "").lower()
    has_criteria = "Partial-credit criteria:" in user
    llm_spans = re.findall(r"^\[span (\S+)\] llm", trace, re.M)
    cited = llm_spans[-1:] if llm_spans else []
    if not answer or answer.startswith("(the run produced no final answer)"):
        verdict, criterion, why = "FAIL", None, "the run has no final answer"
    elif "polite" in requirement or "what happens next" in requirement:
        low = answer.lower()
        polite = any(p in low for p in POLITE)
        nxt = any(n in low for n in NEXT)
        if polite and nxt:
            verdict, criterion, why = "PASS", None, "a polite phrase and a next step are present"
        elif polite and has_criteria:
            verdict, criterion, why = "PARTIAL", 1, "a polite phrase but no next step"
        else:
            verdict, criterion, why = "FAIL", None, "no polite phrase"
    else:
        in_answer = numbers(answer)
        results = numbers(" ".join(re.findall(r"^  result: (.*)$", trace, re.M)))
        found = in_answer & results
        if found:
            verdict, criterion, why = "PASS", None, f"{len(found)} of the answer's numbers occur in tool results"
        elif in_answer:
            verdict, criterion, why = "FAIL", None, "the answer's numbers occur in no tool result"
        elif has_criteria:
            verdict, criterion, why = "PARTIAL", 1, "the answer states no number"
        else:
            verdict, criterion, why = "FAIL", None, "the answer states no number"
    body = {"verdict": verdict, "criterion": criterion, "notes": f"{LABEL}: {why}", "cited_spans": cited}
    text = json.dumps(body)
    return text


def step(system, user):
    metric = re.search(r"^Metric: (\w+) (.+)$", system, re.M)
    step_type, name = (metric.group(1), metric.group(2)) if metric else ("", "")
    data = blocks(user)
    text = data.get("step", "")
    parents = data.get("parents", "")
    request = data.get("case_input", "")
    tools = re.findall(r"^- (\w+):", user, re.M)
    if step_type == "PLAN" and name == "completeness":
        score, why = (4, "the plan is at least 40 characters") if len(text) >= 40 else (2, "the plan is short")
    elif step_type == "PLAN":
        score, why = (4, "it names a listed tool") if any(t in text for t in tools) else (3, "it names no listed tool")
    elif step_type == "TOOLSEL" and name == "selection accuracy":
        sel = text.replace("selected:", "").strip()
        ok = all(s.strip() in tools for s in sel.split(",")) if tools else True
        score, why = (4, "the selected tool is listed") if ok else (1, "the selected tool is not listed")
    elif step_type == "PARAMGEN" and name == "correctness":
        ids = set(ID_LIKE.findall(text))
        context = request + parents
        missing = sorted(i for i in ids if i not in context)
        score, why = (2, f"{missing[0]} occurs nowhere before") if missing else (5, "every id-like value occurs before")
    elif step_type == "SYNTH" and name == "faithfulness":
        missing = sorted(numbers(text) - numbers(parents + request))
        score, why = (2, f"{missing[0]} occurs in no earlier output") if missing else (5, "every number occurs in earlier outputs")
    elif step_type == "SYNTH" and name == "completeness":
        score, why = (4, "the answer is at least 60 characters") if len(text) >= 60 else (2, "the answer is short")
    else:
        score, why = 4, "default score for this metric"
    return f"{LABEL}: {why}.\nScore: {score}"


def semantic(user):
    data = blocks(user)
    ref = re.search(r"Reference answer \(what a correct answer must convey\):\n(.*?)\n\n", user, re.S)
    words = set(re.findall(r"\w+", (ref.group(1) if ref else "").lower()))
    answer = set(re.findall(r"\w+", data.get("final_answer", "").lower()))
    share = len(words & answer) / len(words) if words else 0.0
    return json.dumps({"equivalent": share >= 0.8, "notes": f"{LABEL}: {share:.0%} of the reference's words occur in the answer"})


SPAN_HEAD = re.compile(r"^\[span (\S+)\] (\w+) (.*?)(?: \(agent (.+)\))?$")
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")


def spans_of(trace):
    """The excerpt's spans: id, kind, name, tool (for tool spans) and field lines."""
    out = []
    for line in trace.splitlines():
        m = SPAN_HEAD.match(line)
        if m:
            name = m.group(3)
            tool = name.split(" ", 1)[1] if m.group(2) == "tool" and " " in name else (name if m.group(2) == "tool" else None)
            out.append({"id": m.group(1), "kind": m.group(2), "tool": tool, "fields": {}})
        elif out and line.startswith("  ") and ": " in line:
            key, value = line[2:].split(": ", 1)
            out[-1]["fields"].setdefault(key, value)
    return out


def gpa(user):
    data = blocks(user)
    spans = spans_of(data.get("trace", ""))
    answer = data.get("final_answer", "")
    if answer.startswith("(the run produced no final answer)"):
        answer = ""
    request = data.get("case_input", "")
    llms = [s for s in spans if s["kind"] == "llm"]
    tools = [s for s in spans if s["kind"] == "tool"]
    first = [llms[0]["id"]] if llms else []
    last = [llms[-1]["id"]] if llms else []
    results = numbers(" ".join(s["fields"].get("result", "") for s in tools))
    said = numbers(answer)
    out = {}

    def put(dim, score, why, cited):
        out[dim] = {"score": score, "rationale": f"{LABEL}: {why}", "cited_spans": cited}

    if not answer:
        put("goal_fulfillment", 0, "the run has no final answer", [])
    elif said & results:
        put("goal_fulfillment", 3, f"{len(said & results)} of the answer's numbers occur in tool results", last)
    elif said:
        put("goal_fulfillment", 1, "the answer's numbers occur in no tool result", last)
    else:
        put("goal_fulfillment", 2, "the answer states no number", last)
    unsupported = sorted(said - numbers(request + "\n" + data.get("trace", "")))
    if unsupported:
        put("logical_consistency", 1, f"{unsupported[0]} occurs nowhere in the request or the trace", last)
    else:
        put("logical_consistency", 3, "every number of the answer occurs in the request or the trace", last)
    seen, repeated = {}, []
    for s in tools:
        key = (s["tool"], s["fields"].get("args"))
        if key in seen:
            repeated.append(s["id"])
        seen.setdefault(key, s["id"])
    if repeated:
        put("execution_efficiency", 1, "a tool is called twice with the same arguments", repeated)
    elif len(tools) > 5:
        put("execution_efficiency", 2, f"{len(tools)} tool calls", [s["id"] for s in tools])
    else:
        put("execution_efficiency", 3, f"{len(tools)} tool calls, none repeated", [s["id"] for s in tools])
    plan = llms[0]["fields"].get("output", "") if llms else ""
    named = set(SNAKE.findall(plan))
    called = [s["tool"] for s in tools]
    if not plan:
        put("plan_quality", 0, "the first model turn states no plan", first)
    elif len(plan) < 40:
        put("plan_quality", 1, "the plan is under 40 characters", first)
    elif not named:
        put("plan_quality", 2, "the plan names no tool", first)
    else:
        put("plan_quality", 3, "the plan is at least 40 characters and names a tool", first)
    never = sorted(t for t in named if t not in called)
    unplanned = [s["id"] for s in tools if s["tool"] not in named]
    if named and never:
        put("plan_adherence", 1, f"the plan names {never[0]}, which is never called", first)
    elif unplanned:
        put("plan_adherence", 2, "a called tool is not in the plan", unplanned)
    else:
        put("plan_adherence", 3, "every called tool is in the plan", first)
    over = sorted(t for t in set(called) if called.count(t) > 2)
    if over:
        put("tool_selection", 2, f"{over[0]} is called more than twice", [s["id"] for s in tools if s["tool"] == over[0]])
    else:
        put("tool_selection", 3, "no tool is called more than twice", [s["id"] for s in tools])
    failed = [s["id"] for s in tools if s["fields"].get("status", "").startswith("error")]
    no_result = [s["id"] for s in tools if "result" not in s["fields"]]
    if failed:
        put("tool_calling", 1, "a tool call failed", failed)
    elif no_result:
        put("tool_calling", 2, "a tool call has no result", no_result)
    else:
        put("tool_calling", 3, "every tool call has a result", [s["id"] for s in tools])
    return json.dumps(out)


STEP_HEAD = re.compile(r"^\[(\S+)\] (\w+) `[^`]*`(?: · agent (.+?))?(?: · after (.+))?$")
ERROR_SIGN = re.compile(r"(?im)^error: |traceback \(most recent call last\)|exit ?code:? *[1-9]")


def rca(user):
    data = blocks(user)
    agents = [a.strip() for a in data.get("agents", "").split(",") if a.strip() and a.strip() != "(none named)"]
    steps, current = [], None
    for line in data.get("steps", "").splitlines():
        m = STEP_HEAD.match(line)
        if m:
            current = {"id": m.group(1), "type": m.group(2), "agent": m.group(3),
                       "after": [a.strip() for a in (m.group(4) or "").split(",") if a.strip()], "body": ""}
            steps.append(current)
        elif current is not None:
            current["body"] += line + "\n"
    by_id = {st["id"]: st for st in steps}
    pick, why = (steps[0] if steps else None), "no step reports an error; the first step"
    for st in steps:
        if ERROR_SIGN.search(st["body"]):
            pick, why = st, f"the first step that reports an error ({st['id']})"
            if st["type"] == "EXEC" and st["after"] and st["after"][0] in by_id:
                pick = by_id[st["after"][0]]
                why += f", charged to the step it ran after ({pick['id']})"
            break
    if pick is None:
        span = re.search(r"^\[span (\S+)\]", data.get("steps", ""), re.M)
        step_id = span.group(1) if span else "none"
        agent = agents[0] if agents else None
    else:
        step_id = pick["id"]
        agent = pick["agent"] if pick["agent"] in agents else (agents[0] if agents else None)
    return json.dumps({"step": step_id, "agent": agent, "reason": f"{LABEL}: {why}"})


class Handler(BaseHTTPRequestHandler):
    latency = 0.0

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_error(404)
            return
        length = int(self.headers.get("content-length", "0"))
        req = json.loads(self.rfile.read(length) or b"{}")
        msgs = req.get("messages", [])
        system = next((m["content"] for m in msgs if m.get("role") == "system"), "")
        user = next((m["content"] for m in msgs if m.get("role") == "user"), "")
        structured = "response_format" in req
        if "one step of an AI agent's run" in system:
            text = step(system, user)
        elif 'single requirement (a "checkpoint")' in system:
            text = checkpoint(system, user, structured)
        elif "semantically equivalent" in system:
            text = semantic(user)
        elif "Agent GPA trace judges" in system:
            text = gpa(user)
        elif "failure attribution" in system:
            text = rca(user)
        else:
            text = f"{LABEL}: unknown question.\nScore: 3"
        if self.latency:
            time.sleep(self.latency)
        body = json.dumps({
            "id": "stand-in",
            "object": "chat.completion",
            "model": req.get("model", MODEL),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": (len(system) + len(user)) // 4, "completion_tokens": len(text) // 4},
        }).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency-ms", type=float, default=0.0)
    args = ap.parse_args()
    Handler.latency = args.latency_ms / 1000.0
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
