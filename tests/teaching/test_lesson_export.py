"""A lesson exported as a self-contained page keeps every message, word and highlighted line."""

import html
import json
import xml.etree.ElementTree as ET

import pytest

from mrtr_studio.teaching.lesson_export import lesson_html, lesson_markdown
from mrtr_studio.teaching.lesson_runner import run_lesson
from mrtr_studio.teaching.lessons import LESSONS_BY_ID

pytestmark = pytest.mark.anyio


async def test_html_page_is_self_contained_and_complete() -> None:
    report = await run_lesson(LESSONS_BY_ID["legacy-client"])
    page = lesson_html(report)
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "src=" not in page and "<link" not in page
    for run in report.runs:
        for entry in run.messages:
            assert html.escape(run.steps[entry.seq].text) in page
    assert page.count("<svg") == 2
    svg = page[page.index("<svg"):page.index("</svg>") + 6]
    root = ET.fromstring(svg)  # well-formed SVG
    arrows = root.findall(".//{http://www.w3.org/2000/svg}g")
    classes = [a.get("class") for a in arrows]
    assert "arrow kind-error" in classes  # the -32603 answer is drawn as an error
    assert "input_required needs protocol 2026-07-28" in page
    assert '<span class="hl">' in page  # the handler lines that ran are highlighted


async def test_markdown_has_each_message_as_json() -> None:
    report = await run_lesson(LESSONS_BY_ID["confirm-delete"])
    text = lesson_markdown(report, mermaid={report.runs[0].operation.id: "sequenceDiagram\n  Client->>Server: x"})
    assert text.startswith("# Confirm before delete")
    assert "```mermaid\nsequenceDiagram" in text
    blocks = text.split("```json\n")[1:]
    assert len(blocks) == len(report.runs[0].messages) == 4
    assert json.loads(blocks[-1].split("```")[0])["result"]["content"][0]["text"] == "File deleted"
    assert "([spec](https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr#" in text
