"""A stdlib-only MCP server for the container tests (the image has Debian's Python, not the
`mcp` SDK): initialize, tools/list (code_references), tools/call answering the sites of
`.fake_answers.json` in its working directory as absolute paths under it, in a text result
(JSON), as a server inside a container sees them (/work/...)."""

import json
import os
import sys


def send(msg: dict) -> None:
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if rid is None:
        continue
    if method == "initialize":
        result: dict = {"protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "tiny-mcp", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "code_references", "inputSchema": {
            "type": "object", "properties": {"path": {"type": "string"},
                                             "line": {"type": "integer"},
                                             "column": {"type": "integer"}}}}]}
    elif method == "tools/call":
        with open(".fake_answers.json", encoding="utf-8") as fh:
            refs = json.load(fh)["refs"]
        sites = [{"path": os.path.join(os.getcwd(), p), "start_line": ln + 1}
                 for p, ln in refs]
        result = {"content": [{"type": "text", "text": json.dumps({"results": sites})}]}
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": method}})
        continue
    send({"jsonrpc": "2.0", "id": rid, "result": result})
