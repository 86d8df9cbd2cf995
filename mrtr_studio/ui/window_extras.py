"""Panels and links the window gains without its own module growing: the filter bar's effect on the
operations list and the diagram (filter_links), and the Expert info tab next to Problems with its
counts in the status bar; Compare servers and collections (File and Run menus); the colouring rules
(colour_links). One call from MainWindow._build."""

from typing import TYPE_CHECKING

from . import colour_links, compare_collections_menus, filter_links, replay_menu
from .expert_info import ExpertInfoPanel
from .layout import scrolled
from .skill_view import SkillsInExplorer

if TYPE_CHECKING:
    from .main_window import MainWindow


def install(window: "MainWindow") -> None:
    filter_links.install(window)
    window.expert_info = expert = ExpertInfoPanel(window.studio.store, window.selection, window)
    bottom = window.workbench.bottom
    after_problems = window.workbench.page_index(bottom, window.errors) + 1
    bottom.insertTab(after_problems, scrolled(expert, "page:expert"), "Expert info")
    window.statusBar().addPermanentWidget(expert.status_label)
    window.skills = SkillsInExplorer(window.explorer, window.studio)
    replay_menu.install(window)
    compare_collections_menus.install(window)  # Compare servers, collections
    colour_links.install(window)
