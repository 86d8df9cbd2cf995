"""Dispatch of the commands over recorded and live data (trace, list, diff, run), each module
imported only when its command runs, so `mrtr-studio serve` never loads protobuf or the exporters."""

import argparse

from .pipes import quiet_broken_pipe


def run_data_command(args: argparse.Namespace) -> int:
    return quiet_broken_pipe(lambda: _run(args))


def _run(args: argparse.Namespace) -> int:
    if args.command == "trace":
        from .trace_cmd import run_trace

        return run_trace(args)
    if args.command == "list":
        from .list_cmd import run_list

        return run_list(args)
    if args.command == "diff":
        from .diff_cmd import run_diff

        return run_diff(args)
    from .run_cmd import run_collection

    return run_collection(args)
