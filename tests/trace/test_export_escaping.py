"""Exports of a hostile trace: no field a peer controls becomes markup, a link, a statement or a script."""

import re
from html.parser import HTMLParser
from typing import Any

import pytest
from markdown_it import MarkdownIt

from mrtr_studio.trace import html_export
from mrtr_studio.trace.mermaid import to_mermaid
from mrtr_studio.trace.model import Finding, Operation, TraceMessage

XSS = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
MERMAID_BREAKERS = 'a"b\n    C->>S: injected\n%%{init: {"securityLevel": "loose"}}%% x-->y; #quot'


def hostile(text: str) -> tuple[Operation, list[TraceMessage]]:
    op = Operation(id="op", method=f"tools/call{text}", target=text, arguments={"x": text}, era=text,
                   server=text, started=0.0, outcome="error", problem=text, label=text)
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": text, "params": {"name": text, "x": "```" + text}}
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": text}}
    messages = [
        TraceMessage(0, "op", 1, "client->server", "request", body, 0.0, method=text, jsonrpc_id=text,
                     findings=[Finding(text, "error", text)]),
        TraceMessage(1, "op", 1, text, text, error, 0.0, jsonrpc_id=1),  # type: ignore[arg-type]
    ]
    return op, messages


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def elements(markup: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(markup)
    return parser.tags


def assert_inert(tags: list[tuple[str, dict[str, str | None]]], allowed: set[str]) -> None:
    assert {tag for tag, _ in tags} <= allowed
    for tag, attrs in tags:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        href = attrs.get("href")
        assert href is None or href.startswith("https://"), href


HTML_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "code", "b", "span", "svg", "defs",
             "marker", "path", "text", "line", "rect", "g", "table", "tr", "th", "td", "div", "details", "summary",
             "pre", "small", "a"}


def test_html_export_escapes_every_trace_field_and_forbids_scripts() -> None:
    op, messages = hostile(XSS)
    section = html_export.Section(f"{op.method} {op.target}", op, messages,
                                  explanations={0: (XSS, "javascript:alert(3)")})
    page = html_export.page(XSS, [section], intro=XSS)
    tags = elements(page)
    assert_inert(tags, HTML_TAGS)
    assert "<img" not in page and "<script" not in page
    assert not [tag for tag, _ in tags if tag == "a"]  # the javascript: address is shown, not linked
    policy = [attrs.get("content") for tag, attrs in tags
              if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"]
    assert policy and "default-src 'none'" in str(policy[0]) and "script" not in str(policy[0])
    assert page.count("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;") >= 10


def test_markdown_export_renders_no_markup_from_the_trace() -> None:
    op, messages = hostile(XSS + " [click](javascript:alert(4)) **bold**\n# heading\n```")
    section = html_export.Section(f"{op.method} {op.target}", op, messages,
                                  explanations={0: (XSS, "javascript:alert(3)")})
    text = html_export.markdown(XSS, [section], mermaid={"op": to_mermaid(op, messages)})
    rendered = MarkdownIt("commonmark").render(text)  # raw HTML enabled, as many viewers have it
    assert_inert(elements(rendered), {"h1", "h2", "h3", "p", "pre", "code", "strong"})  # strong: the outcome
    assert "<img" not in rendered and "<script" not in rendered and "<strong>bold</strong>" not in rendered
    # Every message is still a complete, parseable JSON block (its own backticks do not close the fence).
    blocks = [token for token in MarkdownIt("commonmark").parse(text) if token.type == "fence"]
    assert [token.info for token in blocks] == ["mermaid", "json", "json"]


def test_mermaid_labels_stay_one_plain_statement() -> None:
    op, messages = hostile(MERMAID_BREAKERS)
    text = to_mermaid(op, messages)
    lines = text.splitlines()
    assert len(lines) == 3 + 1 + len(messages) + 1 + 1  # header, title note, arrows, finding note, outcome note
    plain = re.sub(r"#\d+;", "", text)  # entity codes are what escaping leaves
    assert "%" not in plain and '"' not in plain and ";" not in plain and "#" not in plain
    for line in lines[4:]:
        statement, _, label = line.partition(": ")
        assert statement.strip() in ("C->>S", "S-->>C", "Note right of S", "Note over C,S"), line
        assert "->>" not in label and "-->" not in label and "<" not in label.replace("<br/>", "")


@pytest.mark.parametrize("text", [XSS, MERMAID_BREAKERS])
def test_exports_keep_the_text_readable(text: str) -> None:
    """Escaped, not dropped: the exported pages still say what the peer sent."""
    op, messages = hostile(text)
    page = html_export.page("t", [html_export.Section("s", op, messages)])
    assert html_export._e(text.splitlines()[0]) in page
