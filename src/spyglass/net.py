"""Listening sockets for the HTTP servers (MCP and web): loopback names and binding."""

from __future__ import annotations

import socket

from spyglass.errors import BadInput

# The names of this machine's loopback interface, in the order Host headers are listed.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0 picks a free one); a clear error if taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BadInput(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(128)
    return sock
