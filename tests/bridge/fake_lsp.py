"""A fake language server for the bridge tests; it misbehaves on command (argv[1]).

ok: answers from `.fake_answers.json` in its working directory ({"refs": [[path, line0]],
"calls": [[path, line0, caller]], "no_hierarchy": true to answer prepareCallHierarchy with
null}) plus every line holding LIVE_USE in the documents the
client synced (never read from disk); workspace/symbol (the bridge's warm-up) is answered
[] in every mode and noted in `.fake_warmed`; fail-start: exits at once; crash: exits on the first
question; hang: never answers a question; malformed: answers a question with garbage;
forged: answers a question with a well-formed answer to a request never sent; injected:
writes a line of text (a forged header) instead of an answer;
partial: the first answer to a question is empty, later ones complete; slow: the first
question is answered after 1.5 s (a server analysing the workspace); indexing: the first
document opened starts a 1 s background index (work-done progress begin ... end, as clangd
does), during which every answer holds the first site only. Requests the client
cancels are appended to `.fake_cancelled`. Stdlib only."""

import json
import os
import sys
import threading
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
DOCS: dict[str, str] = {}
ASKED = {"n": 0}
INDEXING = {"until": 0.0}
OUT = threading.Lock()


def read() -> dict | None:
    length = -1
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(msg: dict) -> None:
    body = json.dumps(msg).encode()
    with OUT:
        sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        sys.stdout.buffer.flush()


def start_indexing() -> None:
    """A background index of 1 s: progress begin now, end from a timer thread."""
    INDEXING["until"] = time.monotonic() + 1.0
    send({"jsonrpc": "2.0", "method": "$/progress",
          "params": {"token": "bg", "value": {"kind": "begin", "title": "indexing"}}})
    end = {"jsonrpc": "2.0", "method": "$/progress",
           "params": {"token": "bg", "value": {"kind": "end"}}}
    threading.Timer(1.0, send, (end,)).start()


def answers() -> dict:
    try:
        with open(".fake_answers.json", encoding="utf-8") as fh:
            return json.load(fh)
    except OSError:
        return {}


def root_uri() -> str:
    return "file://" + os.getcwd()


def live_sites() -> list[tuple[str, int]]:
    out = []
    for uri, text in DOCS.items():
        rel = uri[len(root_uri()) + 1:]
        out += [(rel, i) for i, line in enumerate(text.splitlines()) if "LIVE_USE" in line]
    return out


def rng(line: int) -> dict:
    return {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 1}}


def question(msg: dict) -> object:
    ASKED["n"] += 1
    if MODE == "crash":  # says why on the LSP channel only, as basedpyright does
        send({"jsonrpc": "2.0", "method": "window/logMessage",
              "params": {"type": 1, "message": "fake: out of memory"}})
        sys.exit(5)
    if MODE == "hang":
        return None
    if MODE == "malformed":
        sys.stdout.buffer.write(b"Content-Length: nonsense\r\n\r\n{{{")
        sys.stdout.buffer.flush()
        return None
    if MODE == "forged":  # a well-formed answer to a request never sent, then silence
        send({"jsonrpc": "2.0", "id": 987654, "result": [
            {"uri": f"{root_uri()}/FORGED-ANSWER.py", "range": rng(0)}]})
        return None
    if MODE == "injected":  # text a program the server ran wrote into its stdout
        sys.stdout.buffer.write(b"FORGED-ANSWER: target has no callers\r\n\r\n")
        sys.stdout.buffer.flush()
        return None
    if MODE == "partial" and ASKED["n"] == 1:
        return []
    if MODE == "slow" and ASKED["n"] == 1:
        time.sleep(1.5)
    data = answers()
    method = msg["method"]
    if method == "textDocument/references":
        sites = [(p, ln) for p, ln in data.get("refs", [])] + live_sites()
        if time.monotonic() < INDEXING["until"]:
            sites = sites[:1]
        return [{"uri": f"{root_uri()}/{p}", "range": rng(ln)} for p, ln in sites]
    if method == "textDocument/prepareCallHierarchy":
        if data.get("no_hierarchy"):  # tsc for a function held in a typed `let`
            return None
        return [{"name": "target", "kind": 12, "uri": msg["params"]["textDocument"]["uri"],
                 "range": rng(0), "selectionRange": rng(0)}]
    if method == "callHierarchy/incomingCalls":
        return [{"from": {"name": name, "kind": 12, "uri": f"{root_uri()}/{p}",
                          "range": rng(ln), "selectionRange": rng(ln)},
                 "fromRanges": [rng(ln)]} for p, ln, name in data.get("calls", [])]
    return None


def main() -> None:
    if MODE == "fail-start":
        sys.stderr.write("fake: cannot start: no workspace configuration\n")
        sys.exit(3)
    while True:
        msg = read()
        if msg is None:
            return
        method = msg.get("method", "")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "capabilities": {"referencesProvider": True, "workspaceSymbolProvider": True},
                "serverInfo": {"name": "fake-lsp", "version": "1.0"}}})
            send({"jsonrpc": "2.0", "method": "$/progress",
                  "params": {"token": 1, "value": {"kind": "begin", "title": "index"}}})
            send({"jsonrpc": "2.0", "method": "$/progress",
                  "params": {"token": 1, "value": {"kind": "end"}}})
        elif method == "textDocument/didOpen":
            doc = msg["params"]["textDocument"]
            DOCS[doc["uri"]] = doc["text"]
            if MODE == "indexing" and len(DOCS) == 1:
                start_indexing()
        elif method == "textDocument/didChange":
            DOCS[msg["params"]["textDocument"]["uri"]] = msg["params"]["contentChanges"][-1]["text"]
        elif method == "$/cancelRequest":  # noted in the working directory (host tests)
            with open(".fake_cancelled", "a", encoding="utf-8") as fh:
                fh.write(f"{msg['params']['id']}\n")
        elif method == "workspace/symbol":  # the bridge's warm-up, in every mode
            try:  # noted in the working directory (host tests; read-only in the sandbox)
                with open(".fake_warmed", "a", encoding="utf-8") as fh:
                    fh.write(f"{msg['params']['query']} {len(DOCS)}\n")
            except OSError:
                pass
            send({"jsonrpc": "2.0", "id": msg["id"], "result": []})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif method == "exit":
            return
        elif "id" in msg:
            result = question(msg)
            if MODE not in ("hang", "malformed"):
                send({"jsonrpc": "2.0", "id": msg["id"], "result": result})


if __name__ == "__main__":
    main()
