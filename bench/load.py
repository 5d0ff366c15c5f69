"""`python -m bench.load`: Slack's side of the acks rows, in a process of its own.

Reads a plan from stdin (JSON: url, secret, concurrency, and requests of body + content type),
signs each request as it is sent and posts it, `concurrency` at a time, then prints one JSON
list of [milliseconds, status] in the plan's order.

It runs apart from the server it measures, so that its threads never wait on the server's
interpreter lock, nor the server on theirs; and it speaks HTTP with the standard library's
http.client over one kept-alive connection per thread, so that little of each figure is the
sender's own work (requests spends about a millisecond of Python on each call, and twenty
threads of it queue on this process's lock). From here a request's time is what Slack would see.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from devkit.slack_signing import signed_headers


def run(plan: dict[str, Any]) -> list[tuple[float, int]]:
    url = urllib.parse.urlsplit(plan["url"])
    secret: str = plan["secret"]
    local = threading.local()

    def one(request: dict[str, str]) -> tuple[float, int]:
        connection = getattr(local, "connection", None)
        if connection is None:
            connection = local.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        body = request["body"].encode()
        headers = signed_headers(secret, body, request["content_type"])
        started = time.monotonic()
        connection.request("POST", url.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return (time.monotonic() - started) * 1000, response.status

    with ThreadPoolExecutor(max_workers=plan["concurrency"]) as pool:
        return list(pool.map(one, plan["requests"]))


if __name__ == "__main__":
    json.dump(run(json.load(sys.stdin)), sys.stdout)
