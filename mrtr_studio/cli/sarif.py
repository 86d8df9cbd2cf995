"""SARIF 2.1.0 for `check` and `check-client` (`--sarif FILE`): the format code-scanning dashboards read.

One run; the tool's driver lists one rule per check id (its title as the short description, MUST as
level error and SHOULD as warning by default); a result for each check that failed (error) or whose
SHOULD was not met (warning), with the detail and evidence as its message. A check has no source
file, so each result names the target under test as a logical location (and, when the target is an
http(s) URL, as the artifact too). Every text is masked like the other reports (`secrets`); JSON
escapes control characters itself. The shape is checked against the OASIS schema in the tests.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..trace.deprecation import DEPRECATED_FEATURE
from ..trace.private_files import write_private
from .check_report import CheckResult, mask_identity, masked_results

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"MUST": "error", "SHOULD": "warning"}


def _default_level(result: CheckResult) -> str:
    """A deprecated feature is a note unless `--fail-on deprecated` made it a MUST."""
    return "note" if result.id == DEPRECATED_FEATURE and result.level == "SHOULD" else LEVELS[result.level]


def sarif_document(target: str, results: list[CheckResult], secrets: Sequence[str] | None = None,
                   tool: str = "mrtr-studio") -> dict[str, Any]:
    """The SARIF log as a dict (what `write_sarif` writes)."""
    results = masked_results(results, secrets)
    target = mask_identity(target, secrets or [])
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for r in results:
        if r.id not in index:
            index[r.id] = len(rules)
            rules.append({"id": r.id, "name": r.id, "shortDescription": {"text": r.title or r.id},
                          "defaultConfiguration": {"level": _default_level(r)},
                          "properties": {"requirementLevel": r.level}})
    location: dict[str, Any] = {"logicalLocations": [{"fullyQualifiedName": target, "kind": "module"}]}
    if target.startswith(("http://", "https://")):
        location["physicalLocation"] = {"artifactLocation": {"uri": target}}
    found = []
    for r in results:
        if r.verdict not in ("fail", "warn"):
            continue
        text = "\n".join([f"{r.level}: {r.title}" + (f": {r.detail}" if r.detail else ""), *r.evidence])
        found.append({"ruleId": r.id, "ruleIndex": index[r.id], "level": "error" if r.verdict == "fail" else
                      "note" if r.id == DEPRECATED_FEATURE else "warning",
                      "message": {"text": text}, "locations": [location]})
    run = {"tool": {"driver": {"name": tool, "version": __version__, "semanticVersion": __version__,
                               "rules": rules}},
           "results": found,
           "invocations": [{"executionSuccessful": True,
                            "exitCode": 1 if any(r.failed_must for r in results) else 0}],
           "properties": {"target": target}}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def write_sarif(path: str | Path, target: str, results: list[CheckResult], secrets: Sequence[str] | None = None,
                tool: str = "mrtr-studio") -> None:
    """Write the SARIF log of one `check` or `check-client` run to `path` (UTF-8)."""
    # ASCII with \u escapes: a peer's lone surrogate (valid in JSON text, not in UTF-8) cannot break the write
    text = json.dumps(sarif_document(target, results, secrets, tool), indent=2)
    write_private(path, text + "\n")  # it quotes the peer's answers: 0600
