"""The core never imports Qt, and the layers import one way only."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ["protocol", "engine", "client", "transport", "auth", "trace", "scenarios", "cli", "studio", "teaching",
        "states", "stores", "replay"]


def test_core_imports_with_pyside6_blocked() -> None:
    script = textwrap.dedent(f"""
        import importlib, pkgutil, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("PySide6", "shiboken6", "qasync"):
                    raise ImportError("Qt is blocked for core packages: " + name)
        sys.meta_path.insert(0, Block())
        import mrtr_studio
        for package in {CORE!r}:
            module = importlib.import_module("mrtr_studio." + package)
            for info in pkgutil.walk_packages(module.__path__, module.__name__ + "."):
                importlib.import_module(info.name)
        print("ok")
    """)
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


def test_import_linter_contracts_hold() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    run = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
