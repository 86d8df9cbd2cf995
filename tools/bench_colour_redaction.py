"""How long the colouring rules and the redaction preview take on a big trace:
`python tools/bench_colour_redaction.py [N]` builds N messages (tools/bench_filter.py's trace, default
100,000), then times binding the default colouring rules and finding every message's and operation's
rule (what painting every row once costs; the window asks only for the visible rows), and preparing
the HAR and OTLP exports under the default redaction profile (what the preview's worker thread does).
A benchmark, not a test: it prints the numbers and asserts nothing."""

import sys
import time

from mrtr_studio.studio.colour_rules import DEFAULT_RULES, compile_rules
from mrtr_studio.studio.export_preview import ExportRequest, prepare
from mrtr_studio.trace.redaction_profiles import default_profile
from tools.bench_filter import build


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    operations, messages = build(count)
    started = time.perf_counter()
    bound = compile_rules(list(DEFAULT_RULES)).bind(operations, messages)
    coloured = sum(bound.rule_for(m) is not None for m in messages)
    took = time.perf_counter() - started
    print(f"colouring {len(messages):,} messages: {took * 1000:.0f} ms ({coloured:,} coloured); "
          f"again, remembered: ", end="")
    started = time.perf_counter()
    sum(bound.rule_for(m) is not None for m in messages)
    print(f"{(time.perf_counter() - started) * 1000:.0f} ms")
    started = time.perf_counter()
    rows = sum(bound.rule_for_operation(op) is not None for op in operations)
    print(f"colouring {len(operations):,} operations: {(time.perf_counter() - started) * 1000:.0f} ms ({rows:,})")
    for kind in ("har", "otlp"):
        started = time.perf_counter()
        prepared = prepare(operations, messages, ExportRequest(kind), default_profile())  # type: ignore[arg-type]
        print(f"preparing {kind} under the default profile: {time.perf_counter() - started:.2f} s, "
              f"{len(prepared.text) / 1e6:.1f} MB, masked: {prepared.tally.summary()}")


if __name__ == "__main__":
    main()
