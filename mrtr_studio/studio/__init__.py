"""The window's controller and its services (connection, runs, files, serving, state analysis), Qt-free:
the window in `ui/` only adapts these to widgets. See docs/architecture.md."""
