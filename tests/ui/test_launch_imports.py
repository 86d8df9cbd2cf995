"""The window's launch imports no library it needs only later: each one below cost the launch tens of
milliseconds (issue #23's launch goal), and each has a first use well after the window is up (a form
answered, a foreign requestState opened, a server connected, a token checked)."""

import os
import subprocess
import sys

from tests.ui.launch_probe import probed_launch_env

#: A library, and when the window first needs it.
LATER = {
    "jsonschema": "a form's answer is checked",
    "jsonschema_rs": "a message is validated against the specification's schema",
    "cryptography": "a requestState is signed or checked (a call is run), or a Python SDK one opened",
    "httpx": "an HTTP server is connected",
    "jwt": "a JWT is decoded",
    "yaml": "a skill is listed",
    "regex": "a pattern (a form's, a redaction profile's) is first matched",
    "uvicorn": "the embedded engine is served",
    "redis": "a cluster is started",
    "opentelemetry": "live spans are sent",
    "polars": "a big log is filtered by free text",
    "nanoarrow": "a big log is filtered by free text",
}


def test_the_window_module_imports_none_of_the_later_libraries() -> None:
    code = ("import sys, mrtr_studio.ui.main; "
            f"print(' '.join(name for name in {sorted(LATER)!r} if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    imported = done.stdout.split()
    assert imported == [], [f"{name} (first needed when {LATER[name]})" for name in imported]


#: The studio's own modules the complete window does without, and when it first needs each.
LATER_OWN = {
    "mrtr_studio.studio.export_preview": "an export or a copy is previewed",
    "mrtr_studio.trace.redaction_profiles": "an export or a copy is previewed",
    "mrtr_studio.ui.redaction_preview": "an export or a copy is previewed",
    "mrtr_studio.trace.html_export": "a flow or a lesson is exported as HTML",
    "mrtr_studio.studio.cluster_load": "a load runs against the cluster",
    "mrtr_studio.replay.load": "a load runs against the cluster",
    "mrtr_studio.ui.teaching.lesson_view": "the Lessons tab is shown",
    "mrtr_studio.ui.teaching.lab_view": "the Lab tab is shown",
    "mrtr_studio.ui.teaching.eras_view": "the Eras tab is shown",
    "mrtr_studio.ui.teaching.cluster_view": "the Cluster tab is shown",
}

#: The real launch (`python -m mrtr_studio`), reporting what is imported when the window is complete.
AT_COMPLETE = """
import sys
import mrtr_studio.ui.main_window as window_module
built = window_module.MainWindow.__init__
names = {names!r}
def init(self, *args, **kwargs):
    built(self, *args, **kwargs)
    self.complete.connect(lambda: print("LOADED", " ".join(n for n in names if n in sys.modules), flush=True))
window_module.MainWindow.__init__ = init
sys.argv = ["mrtr-studio"]
from mrtr_studio.__main__ import main
main()
"""


def test_the_complete_window_has_imported_none_of_them(tmp_path) -> None:
    names = sorted({*LATER, *LATER_OWN} - {"yaml"})  # yaml: the demo server's skills, registered at launch
    env = probed_launch_env(tmp_path)
    done = subprocess.run([sys.executable, "-c", AT_COMPLETE.format(names=names)], capture_output=True, text=True,
                          timeout=120, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("LOADED")]
    assert done.returncode == 0 and lines, done.stderr[-2000:]
    imported = lines[0].split()[1:]
    assert imported == [], [f"{name} (first needed when {LATER_OWN.get(name) or LATER[name]})" for name in imported]
