"""Isolation probe for the launcher tests: tries what a sandboxed server must not do, prints
one JSON line, then waits for its stdin to close. Stdlib only.

argv: PORT CANARY_PATH WORKSPACE_FILE"""

import json
import socket
import sys


def can_connect(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False


def can_read(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            return bool(fh.read())
    except OSError:
        return False


def can_write(path: str) -> bool:
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("written by the probe")
        return True
    except OSError:
        return False


port, canary, target = int(sys.argv[1]), sys.argv[2], sys.argv[3]
print(json.dumps({"tcp": can_connect(port), "canary": can_read(canary),
                  "own": can_read(__file__), "write": can_write(target)}), flush=True)
sys.stdin.read()
