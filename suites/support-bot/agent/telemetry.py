"""A tiny OTLP/JSON span recorder with OpenTelemetry GenAI attributes.

No OpenTelemetry SDK: the example agent must run on the Python standard
library alone. The output follows the OTLP/JSON encoding (hex ids,
`intValue` as strings, integer enums) and the GenAI semantic conventions
(`invoke_agent`, `chat`, `execute_tool` spans, messages with `parts`).

Everything is deterministic: the clock is simulated from a fixed base
timestamp and durations come from a `random.Random` seeded by the case id.
"""

from __future__ import annotations

import hashlib
import json
import random

SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
STATUS_ERROR = 2

# 2025-03-03T09:00:00Z: every recorded conversation starts on this morning.
BASE_EPOCH_S = 1740992400


def _sha(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def any_value(value):
    """A Python value as an OTLP `AnyValue`."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def attributes(attrs: dict) -> list:
    return [{"key": k, "value": any_value(v)} for k, v in attrs.items() if v is not None]


def compact(value) -> str:
    """JSON as instrumentations put it into string attributes."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Span:
    def __init__(self, recorder, span_id, parent_id, name, kind, start_ns, attrs):
        self.recorder = recorder
        self.span_id = span_id
        self.parent_id = parent_id
        self.name = name
        self.kind = kind
        self.start_ns = start_ns
        self.end_ns = None
        self.attrs = dict(attrs)
        self.status = None
        self.events = []

    def set_attr(self, key, value):
        self.attrs[key] = value

    def fail(self, error_type: str, message: str):
        self.status = {"code": STATUS_ERROR, "message": message}
        self.attrs["error.type"] = error_type
        self.events.append(
            {
                "timeUnixNano": str(self.recorder.now_ns),
                "name": "exception",
                "attributes": attributes({"exception.type": error_type, "exception.message": message}),
            }
        )

    def to_otlp(self, trace_id: str) -> dict:
        out = {
            "traceId": trace_id,
            "spanId": self.span_id,
            "parentSpanId": self.parent_id or "",
            "name": self.name,
            "kind": self.kind,
            "startTimeUnixNano": str(self.start_ns),
            "endTimeUnixNano": str(self.end_ns),
            "attributes": attributes(self.attrs),
        }
        if self.events:
            out["events"] = self.events
        out["status"] = self.status or {}
        return out


class Recorder:
    """Collects spans on a simulated clock and exports one OTLP document."""

    def __init__(self, case_id: str, variant: str):
        self.case_id = case_id
        self.trace_id = _sha("trace", case_id, variant)[:32]
        seed = int(_sha("seed", case_id)[:16], 16)
        self.rng = random.Random(seed)
        offset_s = int(_sha("offset", case_id)[:8], 16) % (8 * 3600)
        self.now_ns = (BASE_EPOCH_S + offset_s) * 1_000_000_000
        self._n = 0
        self.finished: list[Span] = []

    def span_id(self) -> str:
        self._n += 1
        return _sha("span", self.trace_id, str(self._n))[:16]

    def call_id(self) -> str:
        self._n += 1
        return "call_" + _sha("call", self.trace_id, str(self._n))[:24]

    def response_id(self) -> str:
        self._n += 1
        return "chatcmpl-" + _sha("resp", self.trace_id, str(self._n))[:29]

    def advance_ms(self, lo: int, hi: int | None = None) -> None:
        ms = lo if hi is None else self.rng.randint(lo, hi)
        self.now_ns += ms * 1_000_000

    def gap(self) -> None:
        """Framework overhead between two spans."""
        self.now_ns += self.rng.randint(1, 12) * 1_000_000 + self.rng.randint(0, 999_999)

    def start(self, name: str, kind: int, parent: Span | None, attrs: dict) -> Span:
        self.gap()
        return Span(self, self.span_id(), parent.span_id if parent else None, name, kind, self.now_ns, attrs)

    def end(self, span: Span) -> None:
        self.gap()
        span.end_ns = self.now_ns
        self.finished.append(span)

    def document(self, resource: dict, scope_name: str, scope_version: str) -> dict:
        # Exporters emit spans as they end: children first, the root last.
        return {
            "resourceSpans": [
                {
                    "resource": {"attributes": attributes(resource)},
                    "scopeSpans": [
                        {
                            "scope": {"name": scope_name, "version": scope_version},
                            "spans": [s.to_otlp(self.trace_id) for s in self.finished],
                        }
                    ],
                }
            ]
        }


def estimate_tokens(text: str) -> int:
    """About four characters per token, like the usual rule of thumb."""
    return max(1, (len(text) + 3) // 4)
