"""Flags shared by several commands (OAuth, limits, secrets, own-software commands), defined once."""
