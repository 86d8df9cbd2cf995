"""Dispatch of the commands over recorded and live data (trace, list, diff, run), each module
imported only when its command runs, so `mrtr-studio serve` never loads protobuf or the exporters."""

import argparse

from .lazy import Commands, run_lazily
from .pipes import quiet_broken_pipe


def run_data_command(args: argparse.Namespace) -> int:
    return quiet_broken_pipe(lambda: _run(args))


DATA_COMMANDS: Commands = {"trace": ("trace_cmd", "run_trace"), "list": ("list_cmd", "run_list"),
                           "diff": ("diff_cmd", "run_diff"), "run": ("run_cmd", "run_collection")}


def _run(args: argparse.Namespace) -> int:
    return run_lazily(DATA_COMMANDS, args)
