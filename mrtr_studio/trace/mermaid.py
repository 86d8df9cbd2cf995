"""Export one operation's flow as a Mermaid sequence diagram (the shape the spec's own pages use).

Each message becomes one arrow with what a reader needs to follow MRTR: the JSON-RPC id, the input
keys asked and answered, and whether requestState travelled. Round boundaries are notes, so the
diagram reads like the spec's "Basic Workflow" figure and pastes into Markdown as is.
"""

from typing import Any

from .auth_arrows import AUTH_LANE, IDP_LANE, auth_label, auth_party
from .diagram_layout import layout_operation
from .model import Operation, TraceMessage, auth_exchange, result_of

#: Characters of trace text that could end a statement (`;`, a line break), start an entity (`#`), a
#: comment or a directive (`%%`, `%%{init: ...}%%`, found anywhere in the text), or markup (`<`, `&`,
#: quotes, backticks, braces); `>` also keeps `-->`/`->>` from reading as an arrow. Each becomes a
#: Mermaid entity code, so a label is always one plain-text label.
_ENTITIES = {char: f"#{ord(char)};" for char in "#;%<>&\"'`{}"}


def escape(text: str) -> str:
    """Mermaid label text from a trace: entity codes for what Mermaid would read, one line (`<br/>` joins)."""
    return "<br/>".join("".join(_ENTITIES.get(char, " " if char < " " or char == "\x7f" else char)
                                for char in line) for line in text.splitlines() or [""])


def _target(operation: Operation) -> str:
    return f"{operation.method} {operation.target}".strip()


def _id(message: TraceMessage) -> str:
    return f" (id: {message.jsonrpc_id})" if message.jsonrpc_id is not None else ""


def _keys(requests: Any) -> list[str]:
    if not isinstance(requests, dict):
        return []
    return [f"{key}: {value.get('method')}" if isinstance(value, dict) else str(key) for key, value in requests.items()]


def label(operation: Operation, message: TraceMessage) -> str:
    body = message.message if isinstance(message.message, dict) else {}
    kind = message.kind
    if kind == "request":
        params = body.get("params") or {}
        lines = [f"{body.get('method')} {operation.target}{_id(message)}".replace("  ", " ")]
        if "inputResponses" in params:
            lines.append("inputResponses: " + ", ".join(params["inputResponses"] or {}))
        if "requestState" in params:
            lines.append("requestState")
        return "<br/>".join(escape(line) for line in lines)
    if kind == "input_required":
        result = body.get("result") or {}
        lines = [f"input_required{_id(message)}", *_keys(result.get("inputRequests"))]
        if "requestState" in result:
            lines.append("requestState")
        return "<br/>".join(escape(line) for line in lines)
    task = result_of(body)
    if kind in ("task", "complete") and isinstance(task.get("taskId"), str) and isinstance(task.get("status"), str):
        lines = [f"{'task created' if kind == 'task' else 'task'} {task['status']}{_id(message)}",
                 *_keys(task.get("inputRequests") if task["status"] == "input_required" else None)]
        return "<br/>".join(escape(line) for line in lines)
    if kind == "error":
        error = body.get("error") or {}
        return escape(f"error {error.get('code')} {error.get('message')}{_id(message)}")
    if kind in ("notification", "server_request"):
        return escape(f"{body.get('method')}{_id(message)}")
    if kind == "client_response":
        return escape(("error" if "error" in body else "result") + _id(message))
    if kind == "invalid":
        return escape("unreadable reply")
    if kind == "auth":
        return escape(auth_label(auth_exchange(message)))
    return escape(f"{kind}{_id(message)}")


_ARROWS = {
    "request": "C->>S", "client_response": "C-->>S", "server_request": "S->>C", "notification": "S--)C",
}
#: The participant of each lane an auth exchange reaches.
_PARTIES = {"Server": "S", "User": "U", AUTH_LANE: "A", IDP_LANE: "I"}


def _auth_arrow(message: TraceMessage) -> str:
    exchange = auth_exchange(message)
    party = _PARTIES[auth_party(exchange)]
    back = exchange.get("phase") == "challenge" or exchange.get("method") == "REDIRECT"
    return f"{party}-->>C" if back else f"C->>{party}"


def to_mermaid(operation: Operation, messages: list[TraceMessage], timings: bool = False,
               findings: bool = True) -> str:
    """The operation as `sequenceDiagram` text; `timings` adds the person's answering time per round."""
    parties = {auth_party(auth_exchange(m)) for m in messages if m.kind == "auth"}
    lines = ["sequenceDiagram", *(["    participant U as Browser"] if "User" in parties else []),
             "    participant C as Client", "    participant S as Server",
             *([f"    participant A as {AUTH_LANE}"] if AUTH_LANE in parties else []),
             *([f"    participant I as {IDP_LANE}"] if IDP_LANE in parties else []),
             f"    Note over C,S: {escape(f'{_target(operation)} ({operation.era})')}"]
    current_round = 0
    # A task's runs of same-status polls: one arrow pair each, as in the diagram.
    layout = layout_operation(operation, messages)
    runs = {arrow.seq: arrow.polls for arrow in layout.arrows if arrow.polls > 1 and arrow.seq is not None}
    for message in sorted(messages, key=lambda m: m.seq):
        if message.seq in layout.drawn_as:
            continue
        if message.round != current_round:
            if current_round:
                lines.append(f"    Note over C: round {message.round}")
                if timings and message.round in operation.answer_seconds:
                    lines.append(f"    Note over C: answered in {operation.answer_seconds[message.round]:.1f} s")
            current_round = message.round
        if message.kind == "auth":
            arrow = _auth_arrow(message)
        elif message.kind == "notification" and message.direction == "client->server":
            arrow = "C--)S"
        else:
            arrow = _ARROWS.get(message.kind, "S-->>C")
        text = label(operation, message)
        if message.seq in runs:
            text += escape(f" (polled {runs[message.seq]} times)")
        lines.append(f"    {arrow}: {text}")
        if findings:
            side = "S" if arrow.startswith("C") else "C"
            for finding in message.findings:
                lines.append(f"    Note right of {side}: {escape(f'{finding.severity}: {finding.rule}')}")
    if operation.outcome not in ("complete", "running"):
        ending = operation.outcome + (f": {operation.problem}" if operation.problem else "")
        lines.append(f"    Note over C,S: {escape(ending)}")
    return "\n".join(lines) + "\n"
