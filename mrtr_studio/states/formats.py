"""The names of the requestState formats the studio reads, importable without loading any decoder (the
command line builds its parser from them at every start)."""

FORMATS = ("studio", "python-sdk", "ts-sdk", "jwt", "opaque")
