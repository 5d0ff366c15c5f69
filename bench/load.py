"""`python -m bench.load`: the senders' side of the acks rows, in a process of its own.

Reads a plan from stdin (JSON: url, concurrency, and requests of body + content type, each with
optional headers of its own), posts each request, `concurrency` at a time, then prints one JSON
list of [milliseconds, status] in the plan's order. With `secret`, each request is signed as
Slack signs it, when it is sent (the signature holds the time). Optional: `pause`, seconds each
sender waits after an answer (a light load spread over a while), and `stop_file`, a path whose
existence ends the run: the requests not yet sent are left out of the list.

It runs apart from the server it measures, so that its threads never wait on the server's
interpreter lock, nor the server on theirs; and it speaks HTTP with the standard library's
http.client over one kept-alive connection per thread, so that little of each figure is the
sender's own work (requests spends about a millisecond of Python on each call, and twenty
threads of it queue on this process's lock). From here a request's time is what Slack would see.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from devkit.slack_signing import signed_headers


def run(plan: dict[str, Any]) -> list[tuple[float, int]]:
    url = urllib.parse.urlsplit(plan["url"])
    secret: str | None = plan.get("secret")
    pause: float = plan.get("pause", 0.0)
    stop_file: str | None = plan.get("stop_file")
    local = threading.local()

    def one(request: dict[str, Any]) -> tuple[float, int] | None:
        if stop_file is not None and os.path.exists(stop_file):
            return None
        connection = getattr(local, "connection", None)
        if connection is None:
            connection = local.connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        body = request["body"].encode()
        headers = {"Content-Type": request["content_type"], **request.get("headers", {})}
        if secret is not None:
            headers |= signed_headers(secret, body, request["content_type"])
        started = time.monotonic()
        connection.request("POST", url.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        answered = (time.monotonic() - started) * 1000, response.status
        time.sleep(pause)
        return answered

    with ThreadPoolExecutor(max_workers=plan["concurrency"]) as pool:
        return [answer for answer in pool.map(one, plan["requests"]) if answer is not None]


if __name__ == "__main__":
    json.dump(run(json.load(sys.stdin)), sys.stdout)
