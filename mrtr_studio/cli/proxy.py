"""`mrtr-studio proxy --listen HOST:PORT --upstream URL [--trace FILE]`: the recording reverse proxy.

Prints `listening on http://HOST:PORT/PATH` (the upstream's path) once it accepts connections, one
line on stderr per finished operation (target, rounds, outcome, findings), and stops cleanly on
SIGINT/SIGTERM, writing the trace file. Point the client at the printed URL instead of the server's.
The relay and the recording run in two processes (proxy.recorder_process): linting a message
never delays the next one. More SIGTERMs while stopping still let the trace be written; a second
SIGINT stops at once, keeping the journal (proxy.shutdown); either way stopping takes a bounded time.
"""

import argparse
import sys

from ..proxy.forward import forward_app, forward_protocol
from ..proxy.http_proxy import ProxyApp, ProxyLimits
from ..proxy.recorder_process import RecorderProcess
from ..proxy.shutdown import StopRequests
from ..trace.redaction import Redaction
from ..transport.base import Tap
from ..transport.http_host import make_server
from .otlp_flag import live_spans_of, tee_sink
from .serve import _run, listen_or_say, serve_until_stopped

LABEL = "proxied client"


def run_proxy(args: argparse.Namespace) -> int:
    host, port = args.listen
    redaction = Redaction(args.redact, args.redaction)
    if bool(args.forward) == bool(args.upstream):
        print("mrtr-studio proxy: give --upstream URL (a reverse proxy) or --forward (clients set HTTP_PROXY), "
              "one of them", file=sys.stderr)
        return 2
    # The trace names the upstream: an `?api_key=` in it is masked like any other.
    server = "forward proxy" if args.forward else f"proxy to {redaction.url(args.upstream)}"
    recorder = RecorderProcess(server, LABEL, args.trace, quiet=args.quiet)
    spans = None
    try:
        spans = live_spans_of(args, "mrtr-studio proxy")  # --otlp-endpoint: spans of the relayed requests
        sink = tee_sink(recorder.put, spans)
        app = forward_app(sink, redaction) if args.forward else \
            ProxyApp(args.upstream, Tap(), ProxyLimits(), sink=sink, allowed_hosts=args.allow_host,
                     redaction=redaction)
    except ValueError as exc:
        print(f"mrtr-studio proxy: {exc}", file=sys.stderr)
        if spans is not None:  # its exporter's thread started: ended, not left to the interpreter's exit
            spans.close()
        return 2
    sock = listen_or_say("proxy", host, port)
    if sock is None:
        if spans is not None:
            spans.close()
        return 1
    recorder.start()
    uv = make_server(app, protocol=forward_protocol() if args.forward else None)
    stop = StopRequests()
    stop.when_first(lambda: setattr(uv, "should_exit", True))
    stop.when_at_once(recorder.abandon)
    stop.when_at_once(lambda: setattr(uv, "force_exit", True))
    stop.install()  # for the whole run, loop or no loop: a later SIGTERM must not kill the proxy mid-write

    async def main() -> int:
        try:
            return await serve_until_stopped(uv, sock, "proxy", "proxy", host, app.path, signals_handled=True)
        finally:
            await app.aclose()

    try:
        return _run(main())
    finally:
        sock.close()
        for line in recorder.close():
            print(f"mrtr-studio proxy: {line}", file=sys.stderr)
        if spans is not None:
            spans.close()
        stop.done()
