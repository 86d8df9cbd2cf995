"""Running a command whose module is imported only then: `mrtr-studio serve` never loads the exporters,
and building the parser stays fast. One table (command -> module, function) per dispatcher instead of
an import-and-call block per command."""

import argparse
import importlib
from collections.abc import Callable, Mapping
from typing import cast

from .. import startup

#: command -> (module in mrtr_studio.cli, its `run_…(args) -> int`)
Commands = Mapping[str, tuple[str, str]]


def run_lazily(commands: Commands, args: argparse.Namespace) -> int:
    module, function = commands[args.command]
    run = getattr(importlib.import_module(f".{module}", __package__), function)
    startup.ready()  # the command's modules are in: what it allocates from now on is collected as usual
    return cast(Callable[[argparse.Namespace], int], run)(args)
