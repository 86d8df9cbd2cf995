"""The centre's tab titles and the Teach menu's entries, shared by the pinned tab bar (made with the
mode bar, `ui/modes.py`) and the teaching tabs (`ui/teaching/install.py`).

Kept out of the `teaching` package so that the mode bar does not import it. The views themselves
(lessons, lab, eras, cluster: heavy to build) are built the first time each is shown (`TeachingTabs`).
"""

#: The centre's tabs, in order (the first is the window's flow diagram).
TAB_TITLES = ("Flow", "Lessons", "Lab", "Eras", "Cluster")
#: The Teach menu: (view, entry, shortcut).
MENU_ENTRIES = (
    ("flow", "&Flow diagram", "Ctrl+Alt+0"),
    ("lessons", "&Lessons (scenario library)", "Ctrl+Alt+1"),
    ("lab", "Tamper-and-replay l&ab", "Ctrl+Alt+2"),
    ("eras", "&Eras side by side", "Ctrl+Alt+3"),
    ("cluster", "&Cluster of engines", "Ctrl+Alt+4"),
)
MENU_NAME = "teachMenu"

