"""Teaching the protocol: lessons, the tamper-and-replay lab, eras side by side, a cluster.

`install_teaching(window, studio, store, selection)` adds them all to the studio window; each view's
module is imported when the view is first wanted (`install.TeachingTabs`), not with this package.
"""

from .install import TeachingTabs, install_in_workbench, install_teaching

__all__ = ["TeachingTabs", "install_in_workbench", "install_teaching"]
