"""The PySide6 studio. The only package that imports Qt."""
