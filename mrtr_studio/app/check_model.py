"""What `mrtr-studio check` and `check-client` report: one result per check, MUST or SHOULD, with the
wire evidence that decided it, as a terminal table, a JSON document and JUnit XML for CI.

JUnit: one <testsuite> per target inside <testsuites>; each check is a <testcase> (classname
`mrtr.MUST` or `mrtr.SHOULD`); a failed MUST is a <failure> with the evidence as its text; a SHOULD
not met stays a passing test with the warning in <system-out> (exit status 0 must agree with a
green CI); a skipped check is <skipped>.
"""

import io
import json
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from ..trace.private_files import write_private

Level = Literal["MUST", "SHOULD"]
Verdict = Literal["pass", "fail", "warn", "skipped"]
EVIDENCE_CHARS = 600


@dataclass
class CheckResult:
    id: str
    title: str
    level: Level
    verdict: Verdict
    detail: str = ""
    evidence: list[str] = field(default_factory=list)

    @property
    def failed_must(self) -> bool:
        return self.verdict == "fail" and self.level == "MUST"


def verdict_for(ok: bool, level: Level) -> Verdict:
    return "pass" if ok else ("fail" if level == "MUST" else "warn")


def wire(direction: str, message: Any) -> str:
    """One line of evidence: a message as it crossed the wire, cut at EVIDENCE_CHARS."""
    text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    if len(text) > EVIDENCE_CHARS:
        text = text[:EVIDENCE_CHARS] + f"… ({len(text)} characters)"
    return f"{direction} {text}"


def any_must_failed(results: list[CheckResult]) -> bool:
    return any(r.failed_must for r in results)


def print_table(target: str, results: list[CheckResult], out: TextIO) -> None:
    width = max([len(r.id) for r in results] + [5])
    print(f"checks against {target}", file=out)
    print(f"{'LEVEL':6} {'RESULT':7} {'CHECK':{width}}  DETAIL", file=out)
    for r in results:
        print(f"{r.level:6} {r.verdict.upper():7} {r.id:{width}}  {r.title}" + (f": {r.detail}" if r.detail else ""),
              file=out)
        if r.verdict in ("fail", "warn"):
            for line in r.evidence:
                print(f"{'':15}{' ' * width}  {line}", file=out)
    counts = {v: sum(1 for r in results if r.verdict == v) for v in ("pass", "fail", "warn", "skipped")}
    musts = sum(1 for r in results if r.failed_must)
    print(f"{counts['pass']} passed, {counts['fail']} failed ({musts} MUST), {counts['warn']} SHOULD not met, "
          f"{counts['skipped']} skipped", file=out)


def json_document(target: str, results: list[CheckResult]) -> dict[str, Any]:
    return {"target": target, "passed": not any_must_failed(results), "checks": [asdict(r) for r in results]}


def junit_tree(target: str, results: list[CheckResult], suite: str = "mrtr-studio check") -> ET.ElementTree:
    failures = sum(1 for r in results if r.verdict == "fail")
    skipped = sum(1 for r in results if r.verdict == "skipped")
    root = ET.Element("testsuites", name=suite, tests=str(len(results)), failures=str(failures), errors="0",
                      skipped=str(skipped))
    testsuite = ET.SubElement(root, "testsuite", name=f"{suite}: {target}", tests=str(len(results)),
                              failures=str(failures), errors="0", skipped=str(skipped))
    for r in results:
        case = ET.SubElement(testsuite, "testcase", classname=f"mrtr.{r.level}", name=r.id)
        evidence = "\n".join([r.title + (f": {r.detail}" if r.detail else ""), *r.evidence])
        if r.verdict == "fail":
            failure = ET.SubElement(case, "failure", message=f"{r.level}: {r.title}"[:500], type=r.level)
            failure.text = evidence
        elif r.verdict == "skipped":
            ET.SubElement(case, "skipped", message=r.detail[:500] or "skipped")
        elif r.verdict == "warn":
            ET.SubElement(case, "system-out").text = f"WARNING (SHOULD not met)\n{evidence}"
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(path: str | Path, target: str, results: list[CheckResult], suite: str = "mrtr-studio check") -> None:
    out = io.BytesIO()
    junit_tree(target, results, suite).write(out, encoding="utf-8", xml_declaration=True)
    write_private(path, out.getvalue())  # it quotes the server's answers: 0600
