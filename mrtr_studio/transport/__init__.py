"""Transports: in-memory, Streamable HTTP (server and client), stdio, and the recording tap."""
