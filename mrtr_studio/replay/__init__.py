"""Record once, replay forever: a recording served as a server (`replay-server`), a recorded client's
flows played against another server (`replay`), and real MRTR flows under load (`load`).

The recording is read once into typed flows (`recording`); the matching is pure (`matcher`); the
server is the engine with its MRTR entry answered from the recording (`server`). Everything that
drives rounds goes through the one round-trip machine (protocol/roundtrip.py). See
docs/architecture.md for where this sits.
"""
