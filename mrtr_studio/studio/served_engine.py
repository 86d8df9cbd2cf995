"""The studio's engine served over HTTP to outside clients, their flows recorded as they happen.

A client author points their client at the URL and watches its retry loop in the studio: every
request and answer crosses the server's tap and the stitcher (proxy.stitch) joins each retry to its
operation, by the requestState it echoes or, when the client altered it, by the keys it answers,
so the lint can say "state altered" on the retry instead of seeing a new flow. A call that becomes
a task goes on with the client's tasks/get, tasks/update and tasks/cancel for that task id.
"""

from dataclasses import dataclass

from ..proxy.stitch import Stitcher

LABEL = "external client"


@dataclass
class ServedTraffic(Stitcher):
    label: str = LABEL
