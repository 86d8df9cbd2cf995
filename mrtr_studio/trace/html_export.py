"""Self-contained HTML pages of recorded flows: an inline SVG sequence diagram and every message.

No scripts, no external assets: the page can be mailed, attached to an issue or opened offline.
The diagram is drawn from the same Qt-free layout the studio's view paints, so both agree.
"""

import html
import json
from dataclasses import dataclass, field

from .diagram_layout import LANE_X, LANES, STYLES, Arrow, DiagramLayout, layout_operation, message_summary
from .model import Operation, TraceMessage

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
    height = layout.height + 20
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12">',
           '<defs><marker id="head" markerWidth="10" markerHeight="8" refX="9" refY="4" orient="auto">'
           '<path d="M0,0 L10,4 L0,8 z" fill="context-stroke"/></marker></defs>']
    for lane in LANES:
        x = LANE_X[lane]
        out.append(f'<text x="{x:.0f}" y="30" text-anchor="middle" font-weight="bold">{lane}</text>')
        out.append(f'<line x1="{x:.0f}" y1="40" x2="{x:.0f}" y2="{height - 10:.0f}" stroke="#bbb" '
                   'stroke-dasharray="4 4"/>')
    for activation in layout.activations:
        x = LANE_X[activation.lane] - 5 + activation.depth * 6
        y1 = activation.y1 if activation.y1 is not None else layout.height
        out.append(f'<rect x="{x:.0f}" y="{activation.y0:.0f}" width="10" height="{max(y1 - activation.y0, 4):.0f}" '
                   'fill="#eef3fb" stroke="#9bb"/>')
    for separator in layout.separators:
        out.append(f'<line x1="10" y1="{separator.y:.0f}" x2="{width - 10:.0f}" y2="{separator.y:.0f}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="14" y="{separator.y + 13:.0f}" fill="#888">{html.escape(separator.label)}</text>')
    for arrow in layout.arrows:
        out.append(_svg_arrow(arrow))
    out.append("</svg>")
    return "\n".join(out)


def _svg_arrow(arrow: Arrow) -> str:
    style = arrow.style
    x1, x2 = LANE_X[arrow.src], LANE_X[arrow.dst]
    nudge = 6 * arrow.depth
    x1 += nudge if x1 < x2 else -nudge
    dash = _DASH.get(style.line, "")
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    label = html.escape(arrow.label)
    middle = (x1 + x2) / 2
    parts = [f'<g class="arrow kind-{arrow.kind}">',
             f'<line x1="{x1:.0f}" y1="{arrow.y:.0f}" x2="{x2:.0f}" y2="{arrow.y:.0f}" stroke="{style.colour}" '
             f'stroke-width="{style.width}"{dash_attr} marker-end="url(#head)"/>',
             f'<text x="{middle:.0f}" y="{arrow.y - 5:.0f}" text-anchor="middle" fill="{style.colour}">{label}</text>']
    if arrow.sublabel:
        parts.append(f'<text x="{middle:.0f}" y="{arrow.y + 14:.0f}" text-anchor="middle" fill="#666" '
                     f'font-size="10">{html.escape(arrow.sublabel[:80])}</text>')
    parts.append("</g>")
    return "".join(parts)


def _code(section: Section, round_number: int) -> str:
    lit = set(section.lines.get(round_number, []))
    rows = []
    for offset, text in enumerate(section.source):
        number = section.first_line + offset
        cls = ' class="hl"' if number in lit else ""
        rows.append(f'<span{cls}><span class="n">{number}</span>{html.escape(text)}</span>')
    return '<pre class="code">' + "\n".join(rows) + "</pre>"


def _explained(text: str, spec: str) -> str:
    where = spec.split("/specification/")[-1]
    return f'{html.escape(text)}<div class="spec"><a href="{html.escape(spec)}">{html.escape(where)}</a></div>'


def _section_html(section: Section) -> str:
    op = section.operation
    layout = layout_operation(op, section.messages)
    parts = [f"<h2>{html.escape(section.title)}</h2>",
             f"<p><code>{html.escape(op.method)} {html.escape(op.target)}</code> · era {html.escape(op.era)} · "
             f"server {html.escape(op.server)} · outcome <b>{html.escape(op.outcome)}</b>"
             + (f" — {html.escape(op.problem)}" if op.problem else "") + "</p>",
             svg_diagram(layout),
             "<table><tr><th>#</th><th>round</th><th>direction</th><th>kind</th><th>what</th>"
             + ("<th>explanation</th>" if section.explanations else "") + "</tr>"]
    for entry in section.messages:
        explanation = section.explanations.get(entry.seq)
        words = ""
        if section.explanations:
            words = "<td>" + (_explained(*explanation) if explanation else "") + "</td>"
        body = html.escape(json.dumps(entry.message, indent=2, ensure_ascii=False))
        findings = "".join(f"<div>⚠ {html.escape(f.rule)}: {html.escape(f.message)}</div>" for f in entry.findings)
        parts.append(f"<tr><td>{entry.seq}</td><td>{entry.round}</td><td>{html.escape(entry.direction)}</td>"
                     f'<td class="kind-{entry.kind}">{entry.kind}</td><td>{html.escape(message_summary(entry))}'
                     f"{findings}<details><summary>message</summary><pre>{body}</pre></details></td>{words}</tr>")
    parts.append("</table>")
    if section.source:
        for round_number in sorted(section.lines):
            parts.append(f"<details><summary>Handler lines that ran in round {round_number}</summary>"
                         f"{_code(section, round_number)}</details>")
    return "\n".join(parts)


def page(title: str, sections: list[Section], intro: str = "") -> str:
    body = "\n".join(_section_html(s) for s in sections)
    legend = " ".join(f'<span class="kind-{kind}">{html.escape(style.tag)}</span>'
                      for kind, style in STYLES.items() if kind in ("input_required", "complete", "error"))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
            + (f"<p>{html.escape(intro)}</p>" if intro else "") + f"<p>Legend: {legend}</p>{body}"
            "<p><small>Exported by MRTR Studio.</small></p></body></html>\n")


def markdown(title: str, sections: list[Section], intro: str = "",
             mermaid: "dict[str, str] | None" = None) -> str:
    """The same content as Markdown; `mermaid` maps operation id -> a Mermaid sequence diagram."""
    out = [f"# {title}", ""]
    if intro:
        out += [intro, ""]
    for section in sections:
        op = section.operation
        out += [f"## {section.title}", "", f"`{op.method} {op.target}` · era {op.era} · outcome **{op.outcome}**"
                + (f" — {op.problem}" if op.problem else ""), ""]
        if mermaid and op.id in mermaid:
            out += ["```mermaid", mermaid[op.id].rstrip(), "```", ""]
        for entry in section.messages:
            out.append(f"### {entry.seq}. round {entry.round} · {entry.direction} · {entry.kind}")
            out.append("")
            explanation = section.explanations.get(entry.seq)
            if explanation:
                out += [f"{explanation[0]} ([spec]({explanation[1]}))", ""]
            out += ["```json", json.dumps(entry.message, indent=2, ensure_ascii=False), "```", ""]
    return "\n".join(out)
