"""PySide6's per-module check answered from bytes (ui/pyside_source_check.py): installed with the ui
package, the same verdict as PySide6's own for every module, and what PySide6 records for new ones."""

import importlib
import sys
from types import ModuleType

import mrtr_studio.ui  # noqa: F401  (installs the check)
from mrtr_studio.ui import pyside_source_check


def _feature() -> ModuleType:
    return sys.modules[pyside_source_check.FEATURE_MODULE]


def test_the_ui_package_installs_it_once() -> None:
    check = _feature()._mod_uses_pyside
    assert check.__wrapped__ is not None, "the PySide6 in use has no per-module check to answer faster"
    assert pyside_source_check.install() is True
    assert _feature()._mod_uses_pyside is check  # not wrapped twice


def test_the_verdict_is_pyside6s_own_for_every_loaded_module() -> None:
    window = importlib.import_module("mrtr_studio.ui.main_window")  # the window's ~450 modules among them
    ours = _feature()._mod_uses_pyside
    theirs = ours.__wrapped__
    modules = [module for module in list(sys.modules.values()) if isinstance(module, ModuleType)]
    assert len(modules) > 400
    differing = [module.__name__ for module in modules if ours(module) != theirs(module)]
    assert differing == []
    assert ours(window) is True
    assert ours(importlib.import_module("json")) is False
    assert ours(sys) is False  # a builtin: asked of PySide6's own function


def test_a_module_imported_later_is_recorded_as_pyside6_would(tmp_path, monkeypatch) -> None:
    (tmp_path / "studio_probe_with_qt.py").write_text("# uses PySide6 widgets\nVALUE = 1\n", encoding="utf-8")
    (tmp_path / "studio_probe_without.py").write_text("VALUE = 2  # no Qt here\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    recorded = importlib.import_module("PySide6.support.feature").pyside_feature_dict
    try:
        exec("import studio_probe_with_qt, studio_probe_without", {})  # an import statement: PySide6's hook sees it
        assert recorded["studio_probe_with_qt"] == 0  # uses PySide: switching default "no feature"
        assert recorded["studio_probe_without"] == -1  # ignored by feature switching
    finally:
        for name in ("studio_probe_with_qt", "studio_probe_without"):
            sys.modules.pop(name, None)
            recorded.pop(name, None)


def test_an_unreadable_file_is_asked_of_pyside6(tmp_path) -> None:
    asked: list[ModuleType] = []

    def pyside6s_own(module: ModuleType) -> bool:
        asked.append(module)
        return False

    gone = ModuleType("gone")
    gone.__file__ = str(tmp_path / "gone.py")  # never written
    assert pyside_source_check.uses_pyside_by_bytes(gone, pyside6s_own) is False
    assert asked == [gone]
