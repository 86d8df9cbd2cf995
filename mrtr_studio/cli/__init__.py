"""The command line: one module per command (`call`, `check`, `serve`, `proxy`, ...), the shared flags in
`flags/`, and `parser.py` joining them into `mrtr-studio`. Commands are thin: they parse flags and drive
the services below them; nothing here is imported by the window. See docs/architecture.md."""
