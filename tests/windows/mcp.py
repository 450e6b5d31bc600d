"""A bridge on stdio, driven as an MCP client drives it, for the Wine checks (tests/windows/checks.py).

Only the standard library: the Wine run must not depend on the MCP SDKs the other checks install. A reader thread
splits stdout on b"\\n" into JSON messages; stderr is kept, so that a failed check can show what the bridge said.
"""

import json
import queue
import subprocess
import threading
import time


class Bridge:
    """One `obsmcp bridge` process (any command line), its messages in a queue."""

    def __init__(self, argv, env=None, cwd=None):
        self.argv = argv
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        self.messages = queue.Queue()
        self.raw = bytearray()
        self.stderr = bytearray()
        self.next_id = 0
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self):
        buffer = b""
        while True:
            chunk = self.process.stdout.read1(1 << 16)
            if not chunk:
                self.messages.put(None)
                return
            self.raw.extend(chunk)
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    try:
                        self.messages.put(json.loads(line))
                    except ValueError:
                        self.messages.put({"not_json": line[:200].decode("utf-8", "replace")})

    def _read_stderr(self):
        while True:
            chunk = self.process.stderr.read1(1 << 16)
            if not chunk:
                return
            self.stderr.extend(chunk)

    def send_bytes(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message, line_end=b"\n"):
        self.send_bytes(json.dumps(message, ensure_ascii=False).encode("utf-8") + line_end)

    def request(self, method, params=None, timeout=30.0, line_end=b"\n"):
        """Sends a request and waits for its response; other messages (notifications) are set aside."""
        self.next_id += 1
        request_id = self.next_id
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message, line_end)
        return self.wait_for(request_id, timeout)

    def wait_for(self, request_id, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to request {request_id} within {timeout:.0f} s")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if message is None:
                raise EOFError(f"the bridge closed stdout before answering request {request_id}")
            if "not_json" in message:
                raise ValueError(f"stdout carried something that is not JSON-RPC: {message['not_json']!r}")
            if message.get("id") == request_id:
                return message

    def initialize(self, protocol="2025-06-18"):
        answer = self.request(
            "initialize",
            {"protocolVersion": protocol, "capabilities": {}, "clientInfo": {"name": "wine-checks", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, name, arguments=None, timeout=60.0):
        """A tools/call; returns its result (a JSON-RPC error raises)."""
        answer = self.request("tools/call", {"name": name, "arguments": arguments or {}}, timeout)
        if "error" in answer:
            raise RuntimeError(f"{name}: JSON-RPC error {answer['error']}")
        return answer["result"]

    def close(self, timeout=20.0):
        """Closes stdin and waits for the exit; returns the exit code and the seconds it took."""
        started = time.monotonic()
        self.process.stdin.close()
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            code = None
        return code, time.monotonic() - started

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stderr_tail(self, lines=15):
        return "\n".join(self.stderr.decode("utf-8", "replace").splitlines()[-lines:])


def text_of(result):
    """The text of a tool result's content blocks."""
    return "".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")
