"""An interface diff written out: the readable report (server_diff.report_text), its JSON, or SARIF
2.1.0 for code-scanning dashboards. `mrtr-studio diff --sarif FILE` and the window's Compare servers
"Save report…" both write through here, so the files are the same whichever made them.

SARIF: one rule per severity (`interface-breaking`, `interface-warning`, `interface-info`: error,
warning, note), one result per counted difference naming its area and subject as a logical location
("tools/delete_file"). The sides' labels have their credentials masked (the one redaction profile:
a URL's password and token-named query parameters). Every file is written 0600: a report quotes what
the servers said.
"""

import json
from pathlib import Path
from typing import Any

from .. import __version__
from ..trace.private_files import write_private
from ..trace.redaction import DEFAULT as DEFAULT_REDACTION
from .diff_severity import SEVERITIES
from .server_diff import Change, DiffReport, report_text

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"breaking": "error", "warning": "warning", "info": "note"}
RULE_TEXT = {"breaking": "A client written against the first side may fail against the second",
             "warning": "The interface or a flow changed in a way that may matter to a client",
             "info": "Something was added or reworded"}


def masked(report: DiffReport) -> DiffReport:
    """The report with both sides' labels (URLs, in the changes' texts too) masked."""
    a, b = DEFAULT_REDACTION.url(report.a), DEFAULT_REDACTION.url(report.b)
    if (a, b) == (report.a, report.b):
        return report

    def text(value: str) -> str:
        return value.replace(report.a, a).replace(report.b, b)

    changes = [Change(c.area, c.subject, text(c.what), c.counted, c.severity) for c in report.changes]
    return DiffReport(a, b, changes, [text(note) for note in report.notes])


def sarif_document(report: DiffReport) -> dict[str, Any]:
    report = masked(report)
    rules = [{"id": f"interface-{name}", "name": f"interface-{name}", "shortDescription": {"text": RULE_TEXT[name]},
              "defaultConfiguration": {"level": LEVELS[name]}} for name in SEVERITIES]
    results = []
    for change in report.changes:
        if not change.counted:
            continue
        index = SEVERITIES.index(change.severity)
        results.append({"ruleId": f"interface-{change.severity}", "ruleIndex": index, "level": LEVELS[change.severity],
                        "message": {"text": f"{change.area}: {change.subject}: {change.what}"},
                        "locations": [{"logicalLocations": [{"fullyQualifiedName": f"{change.area}/{change.subject}",
                                                              "kind": "member"}]}]})
    run = {"tool": {"driver": {"name": "mrtr-studio diff", "version": __version__, "semanticVersion": __version__,
                               "rules": rules}},
           "results": results,
           "invocations": [{"executionSuccessful": True, "exitCode": 1 if report.differs else 0}],
           "properties": {"a": report.a, "b": report.b, "notes": report.notes}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def report_format(path: str | Path) -> str:
    """`sarif` for .sarif / .sarif.json, `json` for .json, else `text`."""
    name = str(path).lower()
    return "sarif" if name.endswith((".sarif", ".sarif.json")) else "json" if name.endswith(".json") else "text"


def write_report(path: str | Path, report: DiffReport, kind: str | None = None) -> Path:
    """Write the report as `kind` (text, json, sarif; by the file's name when None), 0600."""
    kind = kind or report_format(path)
    if kind == "sarif":
        # ASCII with \\u escapes: a peer's lone surrogate cannot break the write
        return write_private(path, json.dumps(sarif_document(report), indent=2) + "\n")
    if kind == "json":
        return write_private(path, json.dumps(masked(report).to_json(), indent=2) + "\n")
    if kind == "text":
        return write_private(path, report_text(masked(report)))
    raise ValueError(f"unknown report format {kind!r} (text, json or sarif)")
