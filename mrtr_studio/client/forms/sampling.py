"""Sampling (sampling/createMessage) as a person answering by hand sees it, and simple replies.

The studio has no model: a person types the reply, picks a canned one, or echoes the last user
text. Every builder returns a CreateMessageResult dict checked against the official schema, and
respects `maxTokens` (the spec's MUST) by truncating and reporting `stopReason: "maxTokens"`.
Tokens are approximated by whitespace-separated words, which is enough for a simulator.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from mrtr_studio.protocol.schema import problems

DEFAULT_MODEL = "mrtr-studio-simulated"
STOP_REASONS = ("endTurn", "stopSequence", "maxTokens", "toolUse")
CANNED_REPLIES: tuple[tuple[str, str], ...] = (
    ("Short answer", "Yes."),
    ("Refusal", "I can't help with that."),
    ("Paris", "The capital of France is Paris."),
    ("Lorem ipsum", "Lorem ipsum dolor sit amet, consectetur adipiscing elit."),
)


@dataclass
class SamplingSummary:
    """What a responder shows before a person answers."""

    messages: list[tuple[str, str]] = field(default_factory=list)
    system_prompt: str = ""
    max_tokens: int | None = None
    model_hints: list[str] = field(default_factory=list)
    priorities: dict[str, float] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)
    has_tool_use: bool = False
    extras: dict[str, Any] = field(default_factory=dict)


def _blocks(content: Any) -> list[Any]:
    return content if isinstance(content, list) else [content]


def render_content(content: Any) -> str:
    """Content block(s) as readable text; tool use and tool results stay visible, media is described."""
    lines = []
    for block in _blocks(content):
        if not isinstance(block, dict):
            lines.append(json.dumps(block, ensure_ascii=False))
            continue
        kind = block.get("type")
        if kind == "text":
            lines.append(str(block.get("text", "")))
        elif kind in ("image", "audio"):
            size = len(str(block.get("data", ""))) * 3 // 4
            lines.append(f"[{kind} {block.get('mimeType', '?')}, about {size} bytes]")
        elif kind == "tool_use":
            args = json.dumps(block.get("input", {}), ensure_ascii=False)
            lines.append(f"[tool_use {block.get('name')} id={block.get('id')}] {args}")
        elif kind == "tool_result":
            inner = render_content(block.get("content", []))
            lines.append(f"[tool_result for {block.get('toolUseId')}] {inner}")
        else:
            lines.append(json.dumps(block, ensure_ascii=False))
    return "\n".join(lines)


def summarize(params: dict[str, Any]) -> SamplingSummary:
    summary = SamplingSummary()
    for message in params.get("messages") or []:
        if isinstance(message, dict):
            summary.messages.append((str(message.get("role", "?")), render_content(message.get("content"))))
            summary.has_tool_use |= any(isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result")
                                        for b in _blocks(message.get("content")))
    summary.system_prompt = str(params.get("systemPrompt") or "")
    max_tokens = params.get("maxTokens")
    summary.max_tokens = max_tokens if isinstance(max_tokens, int) else None
    prefs = params.get("modelPreferences") or {}
    summary.model_hints = [str(h.get("name")) for h in prefs.get("hints") or [] if isinstance(h, dict)]
    summary.priorities = {k: v for k, v in prefs.items() if k.endswith("Priority")}
    summary.tools = [str(t.get("name")) for t in params.get("tools") or [] if isinstance(t, dict)]
    summary.extras = {k: params[k] for k in ("temperature", "stopSequences", "includeContext", "toolChoice",
                                             "metadata") if k in params}
    return summary


def suggested_model(params: dict[str, Any]) -> str:
    """The first model hint the server gave, else the simulator's own name."""
    hints = summarize(params).model_hints
    return hints[0] if hints and hints[0] != "None" else DEFAULT_MODEL


def last_user_text(params: dict[str, Any]) -> str:
    for message in reversed(params.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            texts = [b.get("text", "") for b in _blocks(message.get("content"))
                     if isinstance(b, dict) and b.get("type") == "text"]
            if texts:
                return "\n".join(texts)
    return ""


def text_reply(text: str, model: str = DEFAULT_MODEL, stop_reason: str | None = "endTurn",
               max_tokens: int | None = None) -> dict[str, Any]:
    """An assistant text reply, cut to `max_tokens` words (then stopReason becomes maxTokens)."""
    words = text.split()
    if max_tokens is not None and max_tokens >= 0 and len(words) > max_tokens:
        text, stop_reason = " ".join(words[:max_tokens]), "maxTokens"
    result: dict[str, Any] = {"role": "assistant", "content": {"type": "text", "text": text}, "model": model}
    if stop_reason:
        result["stopReason"] = stop_reason
    return result


def echo_reply(params: dict[str, Any], model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """Reply with the last user text, so a flow can be driven without inventing content."""
    return text_reply(last_user_text(params), model, "endTurn", params.get("maxTokens"))


def tool_use_reply(calls: list[tuple[str, dict[str, Any]]], model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """Ask the server to run tools: one ToolUseContent per (name, input), stopReason toolUse."""
    content = [{"type": "tool_use", "id": f"call_{i + 1}", "name": name, "input": args}
               for i, (name, args) in enumerate(calls)]
    return {"role": "assistant", "content": content, "model": model, "stopReason": "toolUse"}


def result_problems(result: dict[str, Any]) -> list[str]:
    """What makes `result` an invalid CreateMessageResult (official schema); empty when sendable."""
    return problems(result, "CreateMessageResult")
