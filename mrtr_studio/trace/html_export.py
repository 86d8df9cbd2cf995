"""Self-contained HTML pages of recorded flows: an inline SVG sequence diagram and every message.

No scripts, no external assets: the page can be mailed, attached to an issue or opened offline.
The diagram is drawn from the same Qt-free layout the studio's view paints, so both agree.

Every value from the trace is what a peer sent, so all of it is escaped (`_e` in HTML, `_md` in
Markdown), and the page carries a Content-Security-Policy that forbids scripts, so a hostile
string that slipped through would still not run.
"""

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..protocol.spec_links import spec_section
from .diagram_layout import (
    LANE_X,
    STYLES,
    Arrow,
    DiagramLayout,
    layout_operation,
    message_summary,
    natural_width,
    spread_lanes,
)
from .model import Operation, TraceMessage

#: No scripts, plugins, frames, forms or outside requests: only the inline style and inline SVG.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
_DASH = {"solid": "", "dash": "8 5", "dot": "2 4", "dashdot": "8 4 2 4"}
_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;padding:4px 6px;vertical-align:top}
th{background:#f4f4f4;text-align:left}pre{background:#f7f7f7;padding:8px;overflow:auto;margin:0}
.kind-error{color:#c0392b;font-weight:600}.kind-input_required{color:#b26a00}.kind-complete{color:#1e7b34}
.code .hl{background:#fff3b0}.code span.n{color:#999;display:inline-block;width:3em}.spec{font-size:12px}
details summary{cursor:pointer}
"""


def _e(value: Any) -> str:
    """Any trace value as HTML text or a quoted attribute value."""
    return html.escape(str(value), quote=True)


def _web_url(url: str) -> str | None:
    """Links only to http(s): a `javascript:` or `data:` address from a trace is shown, never linked."""
    return url if re.match(r"https?://", url, re.IGNORECASE) else None


@dataclass
class Section:
    """One flow on the page, with optional words per message and the handler code that ran."""

    title: str
    operation: Operation
    messages: list[TraceMessage]
    explanations: dict[int, tuple[str, str]] = field(default_factory=dict)  # seq -> (text, spec url)
    source: list[str] = field(default_factory=list)
    first_line: int = 1
    lines: dict[int, list[int]] = field(default_factory=dict)  # round -> executed lines


def svg_diagram(layout: DiagramLayout, width: float = 720.0) -> str:
    """The diagram as SVG: the usual three lanes at fixed places, more (the authorization server, a
    cluster's nodes) spread over a page wide enough for them."""
    if set(layout.lanes) <= set(LANE_X):
        xs = LANE_X
    else:
        width = max(width, natural_width(len(layout.lanes)))
        xs = spread_lanes(layout.lanes, width).x
    height = layout.height + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12">',
           '<defs><marker id="head" markerWidth="10" markerHeight="8" refX="9" refY="4" orient="auto">'
           '<path d="M0,0 L10,4 L0,8 z" fill="context-stroke"/></marker></defs>']
    for lane in layout.lanes:
        x = xs[lane]
        out.append(f'<text x="{x:.0f}" y="30" text-anchor="middle" font-weight="bold">{lane}</text>')
        out.append(f'<line x1="{x:.0f}" y1="40" x2="{x:.0f}" y2="{height - 10:.0f}" stroke="#bbb" '
                   'stroke-dasharray="4 4"/>')
    for activation in layout.activations:
        x = xs[activation.lane] - 5 + activation.depth * 6
        y1 = activation.y1 if activation.y1 is not None else layout.height
        out.append(f'<rect x="{x:.0f}" y="{activation.y0:.0f}" width="10" height="{max(y1 - activation.y0, 4):.0f}" '
                   'fill="#eef3fb" stroke="#9bb"/>')
    for separator in layout.separators:
        out.append(f'<line x1="10" y1="{separator.y:.0f}" x2="{width - 10:.0f}" y2="{separator.y:.0f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="14" y="{separator.y + 13:.0f}" fill="#888">{_e(separator.label)}</text>')
    for arrow in layout.arrows:
        out.append(_svg_arrow(arrow, xs))
    out.append("</svg>")
    return "\n".join(out)


def _svg_arrow(arrow: Arrow, xs: dict[str, float]) -> str:
    style = arrow.style
    x1, x2 = xs[arrow.src], xs[arrow.dst]
    nudge = 6 * arrow.depth
    x1 += nudge if x1 < x2 else -nudge
    dash = _DASH.get(style.line, "")
    dash_attr = f' stroke-dasharray="{_e(dash)}"' if dash else ""
    label = _e(arrow.label)
    middle = (x1 + x2) / 2
    colour = _e(style.colour)
    parts = [f'<g class="arrow kind-{_e(arrow.kind)}">',
             f'<line x1="{x1:.0f}" y1="{arrow.y:.0f}" x2="{x2:.0f}" y2="{arrow.y:.0f}" stroke="{colour}" '
             f'stroke-width="{_e(style.width)}"{dash_attr} marker-end="url(#head)"/>',
             f'<text x="{middle:.0f}" y="{arrow.y - 5:.0f}" text-anchor="middle" fill="{colour}">{label}</text>']
    if arrow.sublabel:
        parts.append(f'<text x="{middle:.0f}" y="{arrow.y + 14:.0f}" text-anchor="middle" fill="#666" '
                     f'font-size="10">{_e(arrow.sublabel[:80])}</text>')
    parts.append("</g>")
    return "".join(parts)


def _code(section: Section, round_number: int) -> str:
    lit = set(section.lines.get(round_number, []))
    rows = []
    for offset, text in enumerate(section.source):
        number = section.first_line + offset
        cls = ' class="hl"' if number in lit else ""
        rows.append(f'<span{cls}><span class="n">{number}</span>{_e(text)}</span>')
    return '<pre class="code">' + "\n".join(rows) + "</pre>"


def _explained(text: str, spec: str) -> str:
    link = f'<a href="{_e(spec)}">{_e(spec_section(spec))}</a>' if _web_url(spec) else _e(spec)
    return f'{_e(text)}<div class="spec">{link}</div>'


def _section_html(section: Section) -> str:
    op = section.operation
    layout = layout_operation(op, section.messages)
    parts = [f"<h2>{_e(section.title)}</h2>",
             f"<p><code>{_e(op.method)} {_e(op.target)}</code> · era {_e(op.era)} · "
             f"server {_e(op.server)} · outcome <b>{_e(op.outcome)}</b>"
             + (f" — {_e(op.problem)}" if op.problem else "") + "</p>",
             svg_diagram(layout),
             "<table><tr><th>#</th><th>round</th><th>direction</th><th>kind</th><th>what</th>"
             + ("<th>explanation</th>" if section.explanations else "") + "</tr>"]
    for entry in section.messages:
        explanation = section.explanations.get(entry.seq)
        words = ""
        if section.explanations:
            words = "<td>" + (_explained(*explanation) if explanation else "") + "</td>"
        body = _e(json.dumps(entry.message, indent=2, ensure_ascii=False))
        findings = "".join(f"<div>⚠ {_e(f.rule)}: {_e(f.message)}</div>" for f in entry.findings)
        parts.append(f"<tr><td>{_e(entry.seq)}</td><td>{_e(entry.round)}</td><td>{_e(entry.direction)}</td>"
                     f'<td class="kind-{_e(entry.kind)}">{_e(entry.kind)}</td><td>{_e(message_summary(entry))}'
                     f"{findings}<details><summary>message</summary><pre>{body}</pre></details></td>{words}</tr>")
    parts.append("</table>")
    if section.source:
        for round_number in sorted(section.lines):
            parts.append(f"<details><summary>Handler lines that ran in round {round_number}</summary>"
                         f"{_code(section, round_number)}</details>")
    return "\n".join(parts)


def page(title: str, sections: list[Section], intro: str = "") -> str:
    body = "\n".join(_section_html(s) for s in sections)
    legend = " ".join(f'<span class="kind-{kind}">{_e(style.tag)}</span>'
                      for kind, style in STYLES.items() if kind in ("input_required", "complete", "error"))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\"><title>{_e(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{_e(title)}</h1>"
            + (f"<p>{_e(intro)}</p>" if intro else "") + f"<p>Legend: {legend}</p>{body}"
            "<p><small>Exported by MRTR Studio.</small></p></body></html>\n")


#: What CommonMark (and GFM) could read as markup inside a line: HTML, entities, links and images,
#: code, emphasis, strikethrough, tables, headings and escapes. Other punctuation stays as it is.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&!~|#])")
#: ... and what only matters at the start of a line: a quote, list item or setext underline.
_MD_LINE_START = re.compile(r"^([-+=>]|\d+(?=[.)]))")


def _md(value: Any) -> str:
    """Trace text inside Markdown prose: one line, markup characters backslash-escaped (CommonMark),
    so no `<tag>`, link, emphasis, heading or fence can come out of a peer's string."""
    text = _MD_SPECIAL.sub(r"\\\1", " ".join(str(value).split()))
    return _MD_LINE_START.sub(lambda m: "\\" + m.group(1) if not m.group(1).isdigit() else m.group(1) + "\\", text)


def _fence(body: str, info: str = "") -> list[str]:
    """A fenced block whose fence is longer than any backtick run inside, so the body cannot close it."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, body, fence]


def _md_link(text: str, url: str) -> str:
    """A link only to a plain http(s) address; anything else is shown as escaped text."""
    if _web_url(url) and re.fullmatch(r"[^\s<>()\\`]+", url):
        return f"[{_md(text)}]({url})"
    return f"{_md(text)} {_md(url)}"


def markdown(title: str, sections: list[Section], intro: str = "",
             mermaid: "dict[str, str] | None" = None) -> str:
    """The same content as Markdown; `mermaid` maps operation id -> a Mermaid sequence diagram."""
    out = [f"# {_md(title)}", ""]
    if intro:
        out += [_md(intro), ""]
    for section in sections:
        op = section.operation
        out += [f"## {_md(section.title)}", "", f"{_md(f'{op.method} {op.target}')} · era {_md(op.era)} · "
                f"outcome **{_md(op.outcome)}**" + (f" — {_md(op.problem)}" if op.problem else ""), ""]
        if mermaid and op.id in mermaid:
            out += [*_fence(mermaid[op.id].rstrip(), "mermaid"), ""]
        for entry in section.messages:
            out.append(f"### {_md(entry.seq)}. round {_md(entry.round)} · {_md(entry.direction)} · {_md(entry.kind)}")
            out.append("")
            explanation = section.explanations.get(entry.seq)
            if explanation:
                out += [f"{_md(explanation[0])} ({_md_link('spec', explanation[1])})", ""]
            out += [*_fence(json.dumps(entry.message, indent=2, ensure_ascii=False), "json"), ""]
    return "\n".join(out)
