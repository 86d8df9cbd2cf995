"""`check --baseline FILE` / `--write-baseline FILE` (cli/baseline.py), kept apart so building the parser
imports nothing heavy."""

import argparse


def add_baseline_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--baseline", metavar="FILE",
                        help="fail (interface-drift) when the server's interface differs from this `list --json` file")
    parser.add_argument("--write-baseline", metavar="FILE", help="record the server's interface as a baseline")
