"""The window's launch imports no library it needs only later: each one below cost the launch tens of
milliseconds (issue #23's launch goal), and each has a first use well after the window is up (a form
answered, a foreign requestState opened, a server connected, a token checked)."""

import os
import subprocess
import sys

#: A library, and when the window first needs it.
LATER = {
    "jsonschema": "a form's answer is checked",
    "jsonschema_rs": "a message is validated against the specification's schema",
    "cryptography.hazmat.primitives.ciphers": "a Python SDK requestState is opened",
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
