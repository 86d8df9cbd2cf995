"""Teaching the protocol: lessons, the tamper-and-replay lab, eras side by side, a cluster.

`install_teaching(window, studio, store, selection)` adds them all to the studio window.
"""

from .cluster_view import ClusterView
from .eras_view import ErasView
from .install import TeachingTabs, install_in_workbench, install_teaching
from .lab_view import LabView
from .lesson_view import LessonView

__all__ = ["ClusterView", "ErasView", "LabView", "LessonView", "TeachingTabs", "install_in_workbench",
           "install_teaching"]
