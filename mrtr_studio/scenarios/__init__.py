"""Built-in servers: the demo handlers and the conformance fixtures."""

from .demo import DemoServer, build_demo_server

__all__ = ["DemoServer", "build_demo_server"]
