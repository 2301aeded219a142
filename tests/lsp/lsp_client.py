"""A small LSP client over pipes for the tests (python3 stdlib only): spawns
`faultline lsp`, frames JSON-RPC with Content-Length headers, keeps the
notifications the server sends, and waits for answers with a deadline."""
import json
import os
import select
import subprocess
import tempfile
import time


class LspClient:
    def __init__(self, argv, env=None):
        # stderr to a file: a pipe nobody reads would block a chatty server
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, env=env)
        self.buf = b""
        self.next_id = 1
        self.notifications = []  # every notification the server sent, in order
        self.responses = {}

    # ---- writing
    def send_raw(self, data, timeout=60):
        # Write while reading: a server answering a burst of messages fills
        # its output pipe and stops reading until someone reads it, so a
        # blocking write here could wait for it forever (as LSP clients do,
        # read and write at once).
        out = self.proc.stdin.fileno()
        view = memoryview(data)
        deadline = time.monotonic() + timeout
        os.set_blocking(out, False)
        try:
            while view:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the server stopped reading its input")
                readable, writable, _ = select.select([self.proc.stdout], [out], [], left)
                if readable:
                    self._read_some(deadline)
                    self._take_messages()
                if writable:
                    try:
                        view = view[os.write(out, view[:1 << 16]):]
                    except BlockingIOError:
                        pass
        finally:
            os.set_blocking(out, True)

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=20):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait_response(rid, timeout)

    # ---- reading
    def _read_some(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([self.proc.stdout], [], [], left)
        if not ready:
            return False
        chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        if not chunk:
            raise EOFError("the server closed its output")
        self.buf += chunk
        return True

    def _take_messages(self):
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            header = self.buf[:end].decode("ascii")
            length = None
            for line in header.split("\r\n"):
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None, "server header without Content-Length: %r" % header
            if len(self.buf) < end + 4 + length:
                return
            msg = json.loads(self.buf[end + 4:end + 4 + length])
            self.buf = self.buf[end + 4 + length:]
            if "method" in msg:
                self.notifications.append(msg)
            else:
                self.responses[msg.get("id")] = msg

    def pump(self, deadline):
        got = self._read_some(deadline)
        self._take_messages()
        return got

    def wait_response(self, rid, timeout=20):
        deadline = time.monotonic() + timeout
        while rid not in self.responses:
            if not self.pump(deadline) and time.monotonic() >= deadline:
                raise TimeoutError("no answer to request %r" % rid)
        return self.responses.pop(rid)

    def wait_notification(self, pred, timeout=20, after=0):
        """The first notification at index >= after for which pred holds."""
        deadline = time.monotonic() + timeout
        while True:
            for i in range(after, len(self.notifications)):
                if pred(self.notifications[i]):
                    return i, self.notifications[i]
            if not self.pump(deadline) and time.monotonic() >= deadline:
                raise TimeoutError("no such notification; got %s" % [n["method"] for n in self.notifications[after:]])

    def diagnostics_for(self, uri, after=0, timeout=20):
        """The next publishDiagnostics for uri: (index, params)."""
        i, n = self.wait_notification(
            lambda m: m["method"] == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri, timeout, after)
        return i, n["params"]

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.stderr.close()
