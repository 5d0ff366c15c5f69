"""A fake Socket Mode endpoint: a minimal WebSocket server on loopback (RFC 6455, text frames,
ping/pong, close) that says hello, sends envelopes and records the acknowledgements.

slack_sdk's built-in client connects without TLS to any port but 443 ("for library testing"),
so `FakeSlack.socket_url = fake.url` is all `apps.connections.open` needs to hand out.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import socket
import struct
import threading
from typing import Any, Self

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class FakeSocketMode:
    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"ws://127.0.0.1:{self._listener.getsockname()[1]}/link"
        self.acks: list[dict[str, Any]] = []
        self.connected = threading.Event()
        self._client: socket.socket | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._listener.close()
        with self._lock, contextlib.suppress(OSError):
            if self._client is not None:
                self._client.close()
        self._thread.join(timeout=5)

    def send_event(self, envelope_id: str, event_callback: dict[str, Any]) -> None:
        """An Events API delivery, as Slack wraps it for Socket Mode."""
        envelope = {
            "envelope_id": envelope_id,
            "type": "events_api",
            "accepts_response_payload": False,
            "retry_attempt": 0,
            "retry_reason": "",
            "payload": event_callback,
        }
        self._send(TEXT, json.dumps(envelope).encode())

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._handshake(client):
                client.close()
                continue
            with self._lock:
                self._client = client
            self._send(TEXT, json.dumps({"type": "hello", "num_connections": 1}).encode())
            self.connected.set()
            self._read(client)

    def _handshake(self, client: socket.socket) -> bool:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = client.recv(4096)
            if not chunk:
                return False
            request += chunk
        headers = dict(line.split(": ", 1) for line in request.decode("latin-1").split("\r\n")[1:] if ": " in line)
        key = next((value for name, value in headers.items() if name.lower() == "sec-websocket-key"), "")
        accept = base64.b64encode(hashlib.sha1((key + _GUID).encode()).digest()).decode()
        client.sendall(
            (
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Accept: {accept}\r\n\r\n"
            ).encode()
        )
        return True

    def _read(self, client: socket.socket) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while not self._stop.is_set():
                opcode, payload = _read_frame(client)
                if opcode == TEXT:
                    self.acks.append(json.loads(payload))
                elif opcode == PING:
                    self._send(PONG, payload)
                elif opcode == CLOSE:
                    return

    def _send(self, opcode: int, payload: bytes) -> None:
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, length)
        elif length < 2**16:
            header = struct.pack("!BBH", 0x80 | opcode, 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 127, length)
        with self._lock:
            if self._client is not None:
                self._client.sendall(header + payload)


def _recv_exactly(client: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = client.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def _read_frame(client: socket.socket) -> tuple[int, bytes]:
    first, second = _recv_exactly(client, 2)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", _recv_exactly(client, 2))
    elif length == 127:
        (length,) = struct.unpack("!Q", _recv_exactly(client, 8))
    mask = _recv_exactly(client, 4) if second & 0x80 else b"\0\0\0\0"  # clients always mask
    payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(_recv_exactly(client, length)))
    return first & 0x0F, payload
