"""The command table: every subcommand the parser offers is dispatched to a module that has its runner,
and building the parser imports none of them."""

import argparse
import importlib
import subprocess
import sys

from mrtr_studio.cli import parser as cli_parser
from mrtr_studio.cli.data_commands import DATA_COMMANDS


def subcommands() -> set[str]:
    built = cli_parser.build_parser()
    action = next(a for a in built._actions if isinstance(a, argparse._SubParsersAction))
    return set(action.choices)


def test_every_subcommand_is_dispatched_to_an_existing_runner() -> None:
    assert subcommands() == set(cli_parser.COMMANDS) | {"state"}
    for table in (cli_parser.COMMANDS, DATA_COMMANDS):
        for module, function in table.values():
            assert callable(getattr(importlib.import_module(f"mrtr_studio.cli.{module}"), function))
    assert set(DATA_COMMANDS) == {name for name, (module, _) in cli_parser.COMMANDS.items()
                                  if module == "data_commands"}


def test_building_the_parser_imports_no_command_module() -> None:
    modules = sorted({f"mrtr_studio.cli.{m}" for table in (cli_parser.COMMANDS, DATA_COMMANDS)
                      for m, _ in table.values()})
    code = ("import sys; from mrtr_studio.cli.parser import build_parser; build_parser(); "
            f"print([m for m in {modules!r} if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_commands_run_through_the_table(tmp_path, capsys) -> None:
    missing = str(tmp_path / "nothing.mrtr.json")
    assert cli_parser.main(["diff", missing, "memory:"]) == 2  # data_commands, then diff_cmd
    assert capsys.readouterr().err.startswith("mrtr-studio diff: cannot read")
    assert cli_parser.main(["replay-server", missing]) != 0  # replay_server.run_replay_server
    assert "mrtr-studio replay-server" in capsys.readouterr().err
