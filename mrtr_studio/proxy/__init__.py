"""Watching a client and server the studio does not own: the recording reverse proxy, the stdio
wrapper and its live feed, and the stitching of their traffic into operations."""
