"""One MCP session of the Python SDK (`mcp` from PyPI) with Sheetgate, driven line by line.

The test writes one JSON command a line on stdin and reads one JSON answer a line on stdout:
  {"op": "list_tools"}
  {"op": "call", "name": ..., "arguments": {...}, "progress": true, "elicitation": "accept"}
  {"op": "requests"}        the HTTP requests the client has sent so far (method, MCP headers)
The first line out says the session is open: {"event": "connected", "protocolVersion", ...}.
Settings come from the environment, never the command line or a URL query:
  SHEETGATE_MCP_URL, SHEETGATE_MCP_ERA ("modern": 2026-07-28 pinned; "legacy": initialize,
  2025-11-25), and the credential, SHEETGATE_API_KEY or SHEETGATE_BEARER_TOKEN.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

if sys.version_info < (3, 11):
    from exceptiongroup import BaseExceptionGroup

MODERN = "2026-07-28"


def emit(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def described(error: BaseException) -> dict[str, Any]:
    """The error the server (or the transport) gave, out of anyio's exception groups."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    if isinstance(error, MCPError):
        return {"code": error.error.code, "message": error.error.message, "data": error.error.data}
    return {"type": type(error).__name__, "message": str(error)}


def credential_headers() -> dict[str, str]:
    key = os.environ.get("SHEETGATE_API_KEY")
    token = os.environ.get("SHEETGATE_BEARER_TOKEN")
    if bool(key) == bool(token):
        raise SystemExit("set exactly one of SHEETGATE_API_KEY and SHEETGATE_BEARER_TOKEN")
    return {"x-api-key": key} if key else {"authorization": f"Bearer {token}"}


def form_answer(schema: dict[str, Any]) -> dict[str, Any]:
    """What a person who says yes fills in: every required field, ticking boxes, first choices."""
    answer: dict[str, Any] = {}
    properties = schema.get("properties", {})
    for name in schema.get("required", []):
        field = properties.get(name, {})
        if field.get("type") == "boolean":
            answer[name] = True
        elif "enum" in field:
            answer[name] = field["enum"][0]
        elif "oneOf" in field:
            answer[name] = field["oneOf"][0]["const"]
        elif "default" in field:
            answer[name] = field["default"]
        elif field.get("type") in ("number", "integer"):
            answer[name] = field.get("minimum", 0)
        else:
            answer[name] = "yes"
    return answer


class Session:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.pending: dict[int, dict[str, Any]] = {}
        # What the person answers when the server asks during the current call, and what it asked.
        self.decision: str | None = None
        self.elicitations: list[dict[str, Any]] = []

    async def record_request(self, request: httpx2.Request) -> None:
        method = None
        if request.method == "POST":
            try:
                method = json.loads(request.content).get("method")
            except (ValueError, AttributeError):
                method = None
        self.requests.append(
            {
                "status": None,
                "httpMethod": request.method,
                "method": method,
                "protocolVersionHeader": request.headers.get("mcp-protocol-version"),
                "mcpMethodHeader": request.headers.get("mcp-method"),
                "mcpNameHeader": request.headers.get("mcp-name"),
            }
        )
        self.pending[id(request)] = self.requests[-1]

    async def record_response(self, response: httpx2.Response) -> None:
        record = self.pending.pop(id(response.request), None)
        if record is not None:
            record["status"] = response.status_code

    async def elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        asked = params.model_dump(by_alias=True, mode="json", exclude_none=True)
        self.elicitations.append(asked)
        if self.decision == "accept" and isinstance(params, types.ElicitRequestFormParams):
            return types.ElicitResult(action="accept", content=form_answer(asked.get("requestedSchema", {})))
        if self.decision in ("accept", "decline"):
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="cancel")


async def serve(client: Client, session: Session) -> None:
    stdin = anyio.wrap_file(sys.stdin)
    while True:
        line = await stdin.readline()
        if not line:
            return
        command = json.loads(line)
        try:
            emit(await run(client, session, command))
        except Exception as error:  # the test asserts on it; the session stays usable
            emit({"ok": False, "error": described(error)})


async def run(client: Client, session: Session, command: dict[str, Any]) -> dict[str, Any]:
    op = command.get("op")
    if op == "list_tools":
        listed = await client.list_tools()
        return {"ok": True, "tools": [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in listed.tools]}
    if op == "requests":
        return {"ok": True, "requests": session.requests}
    if op == "call":
        progress: list[dict[str, Any]] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append({"progress": value, "total": total, "message": message})

        session.decision = command.get("elicitation")
        session.elicitations = []
        result = await client.call_tool(
            command["name"],
            command.get("arguments", {}),
            progress_callback=on_progress if command.get("progress") else None,
        )
        # Copied now: what arrived before the result did, not what might trickle in after.
        return {
            "ok": True,
            "result": result.model_dump(by_alias=True, mode="json", exclude_none=True),
            "progress": list(progress),
            "elicitations": list(session.elicitations),
        }
    raise ValueError(f"unknown op {op!r}")


async def main() -> None:
    url = os.environ.get("SHEETGATE_MCP_URL")
    if not url:
        raise SystemExit("set SHEETGATE_MCP_URL to the MCP endpoint")
    era = os.environ.get("SHEETGATE_MCP_ERA", "modern")
    if era not in ("modern", "legacy"):
        raise SystemExit(f"SHEETGATE_MCP_ERA must be modern or legacy, not {era!r}")
    session = Session()
    try:
        await connect_and_serve(url, era, session)
    except Exception as failure:
        # The HTTP status tells a refused credential from a protocol error; the SDK says neither.
        emit({"event": "failed", "error": described(failure), "requests": session.requests})
        raise


async def connect_and_serve(url: str, era: str, session: Session) -> None:
    async with httpx2.AsyncClient(
        headers=credential_headers(),
        timeout=httpx2.Timeout(30, read=120),
        event_hooks={"request": [session.record_request], "response": [session.record_response]},
    ) as http:
        client = Client(
            streamable_http_client(url, http_client=http),
            # A version string pins the 2026-07-28 era (no initialize, _meta on every request);
            # "legacy" runs the initialize handshake at the SDK's newest handshake version.
            mode=MODERN if era == "modern" else "legacy",
            elicitation_callback=session.elicit,
            client_info=types.Implementation(name="sheetgate-e2e-python", version="1.0.0"),
        )
        async with client:
            connected: dict[str, Any] = {"event": "connected", "protocolVersion": client.protocol_version}
            if era == "modern":
                # Pinning adopts the version without asking; ask server/discover as a host would.
                discovered = await client.session.send_discover(MODERN)
                connected["discover"] = discovered
            emit(connected)
            await serve(client, session)


if __name__ == "__main__":
    try:
        anyio.run(main)
    except Exception:
        traceback.print_exc()
        sys.exit(1)
