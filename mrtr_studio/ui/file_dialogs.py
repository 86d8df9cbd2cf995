"""File dialogs that start where the person last was, one remembered folder per purpose (traces,
exports, configs), instead of wherever the process happened to start."""

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QWidget


def _folder(purpose: str) -> str:
    folder = str(QSettings().value(f"dialogs/{purpose}", "") or "")
    return folder if folder and Path(folder).is_dir() else str(Path.home())


def _remember(purpose: str, path: str) -> None:
    if path:
        QSettings().setValue(f"dialogs/{purpose}", str(Path(path).parent))


def ask_open(parent: QWidget, title: str, filters: str, purpose: str) -> str:
    path, _ = QFileDialog.getOpenFileName(parent, title, _folder(purpose), filters)
    _remember(purpose, path)
    return path


def ask_save(parent: QWidget, title: str, name: str, filters: str, purpose: str) -> str:
    path, _ = QFileDialog.getSaveFileName(parent, title, str(Path(_folder(purpose)) / name), filters)
    _remember(purpose, path)
    return path
