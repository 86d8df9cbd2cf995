"""What `mrtr-studio check` and `check-client` report: one result per check, MUST or SHOULD, with the
wire evidence that decided it, as a terminal table, a JSON document and JUnit XML for CI.

JUnit: one <testsuite> per target inside <testsuites>; each check is a <testcase> (classname
`mrtr.MUST` or `mrtr.SHOULD`); a failed MUST is a <failure> with the evidence as its text; a SHOULD
not met stays a passing test with the warning in <system-out> (exit status 0 must agree with a
green CI); a skipped check is <skipped>. SARIF 2.1.0 (`--sarif`) is written by `sarif.write_sarif`.

Everything in a report may hold a peer's text (a client's answer keys, a server's error message), so
each writer makes it safe for where it goes: `terminal_text` escapes control and bidi characters
before they reach a terminal, `xml_text` replaces what XML 1.0 cannot hold (JUnit stays well-formed),
and every writer takes `secrets` (the `--identity` tokens) and masks them with `mask_identity`.
"""

import io
import json
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from ..trace.private_files import write_private

Level = Literal["MUST", "SHOULD"]
Verdict = Literal["pass", "fail", "warn", "skipped"]
EVIDENCE_CHARS = 600
MASK = "***"
#: What XML 1.0 cannot carry at all, not even as a character reference.
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


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


def mask_identity(text: str, secrets: Sequence[str]) -> str:
    """`text` with every secret (and its JSON-escaped spelling, as it appears inside wire evidence)
    replaced by ***: a report goes to CI logs and artifacts, the tokens it acted with must not."""
    spellings = {form for secret in secrets if secret
                 for form in (secret, json.dumps(secret, ensure_ascii=False)[1:-1], json.dumps(secret)[1:-1])}
    for form in sorted(spellings, key=len, reverse=True):  # a longer secret first: one may contain another
        text = text.replace(form, MASK)
    return text


def _escape_char(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def terminal_text(text: str) -> str:
    """`text` safe for a terminal: control, format (bidi overrides) and separator characters become
    visible escapes, so a peer's text cannot move the cursor, recolour or reorder the table."""
    return "".join(_escape_char(c) if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c
                   for c in text)


def xml_text(text: str) -> str:
    """`text` as XML 1.0 can hold it: the characters it forbids become visible escapes."""
    return _XML_ILLEGAL.sub(lambda m: _escape_char(m.group()), text)


def _masked(value: Any, secrets: Sequence[str]) -> Any:
    if isinstance(value, str):
        return mask_identity(value, secrets)
    if isinstance(value, list):
        return [_masked(v, secrets) for v in value]
    if isinstance(value, dict):
        return {_masked(k, secrets): _masked(v, secrets) for k, v in value.items()}
    return value


def masked_results(results: list[CheckResult], secrets: Sequence[str] | None) -> list[CheckResult]:
    """Copies of `results` with the secrets masked in every text (the results themselves untouched)."""
    if not secrets:
        return results
    return [CheckResult(r.id, mask_identity(r.title, secrets), r.level, r.verdict, mask_identity(r.detail, secrets),
                        [mask_identity(line, secrets) for line in r.evidence]) for r in results]


ERA_RULES = {
    "modern": "2026-07-28 rules: retries with the state echoed and answers keyed like the requests",
    "legacy": "2025-11-25 rules: server-initiated requests answered within the declared capabilities",
    "modern+legacy": "each flow by its own era's rules",
}


def print_table(target: str, results: list[CheckResult], out: TextIO, secrets: Sequence[str] | None = None,
                era: str | None = None) -> None:
    """The terminal table; every text is masked, then escaped (`terminal_text`)."""
    results = masked_results(results, secrets)
    width = max([len(terminal_text(r.id)) for r in results] + [5])
    print(f"checks against {terminal_text(mask_identity(target, secrets or []))}", file=out)
    if era:
        print(f"era judged: {era} ({ERA_RULES.get(era, 'no flow seen')})", file=out)
    print(f"{'LEVEL':6} {'RESULT':7} {'CHECK':{width}}  DETAIL", file=out)
    for r in results:
        print(f"{r.level:6} {r.verdict.upper():7} {terminal_text(r.id):{width}}  {terminal_text(r.title)}"
              + (f": {terminal_text(r.detail)}" if r.detail else ""), file=out)
        if r.verdict in ("fail", "warn"):
            for line in r.evidence:
                print(f"{'':15}{' ' * width}  {terminal_text(line)}", file=out)
    counts = {v: sum(1 for r in results if r.verdict == v) for v in ("pass", "fail", "warn", "skipped")}
    musts = sum(1 for r in results if r.failed_must)
    print(f"{counts['pass']} passed, {counts['fail']} failed ({musts} MUST), {counts['warn']} SHOULD not met, "
          f"{counts['skipped']} skipped", file=out)


def json_document(target: str, results: list[CheckResult], secrets: Sequence[str] | None = None,
                  era: str | None = None) -> dict[str, Any]:
    """The `--json` document (JSON escapes control characters itself); `era` says which rules judged."""
    document: dict[str, Any] = {"target": target, "passed": not any_must_failed(results)}
    if era:
        document["era"] = era
    document["checks"] = [asdict(r) for r in results]
    return _masked(document, secrets) if secrets else document


def junit_tree(target: str, results: list[CheckResult], suite: str = "mrtr-studio check",
               secrets: Sequence[str] | None = None) -> ET.ElementTree:
    """JUnit XML; every text is masked and made XML-safe (`xml_text`), so the file is always well-formed."""
    results = [CheckResult(xml_text(r.id), xml_text(r.title), r.level, r.verdict, xml_text(r.detail),
                           [xml_text(line) for line in r.evidence]) for r in masked_results(results, secrets)]
    target = xml_text(mask_identity(target, secrets or []))
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


def write_junit(path: str | Path, target: str, results: list[CheckResult], suite: str = "mrtr-studio check",
                secrets: Sequence[str] | None = None) -> None:
    out = io.BytesIO()
    junit_tree(target, results, suite, secrets).write(out, encoding="utf-8", xml_declaration=True)
    write_private(path, out.getvalue())  # it quotes the server's answers: 0600


#: (flag, path or None when not given, what writes the file at a path)
ReportFile = tuple[str, "str | None", Callable[[str], object]]


def write_report_files(command: str, reports: Sequence[ReportFile]) -> bool:
    """Write every report file asked for (--trace, --junit, --sarif...). One that cannot be written is one
    line naming its flag, and the others are still written, because a report on the terminal with a
    missing CI file must not pass for a clean run: False then, and the command exits 1."""
    ok = True
    for flag, path, write in reports:
        if not path:
            continue
        try:
            write(path)
        except OSError as exc:
            print(f"mrtr-studio {command}: {flag} {terminal_text(path)}: cannot write: {exc.strerror or exc}",
                  file=sys.stderr)
            ok = False
    return ok
