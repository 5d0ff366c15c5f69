import json, urllib.parse, time
from tests.integration.slack_harness import SlackHarness

def test_probe(harness: SlackHarness) -> None:
    cases = {
        "bad json": (b"{not json", "application/json"),
        "json list": (b"[1,2]", "application/json"),
        "json string": (b'"x"', "application/json"),
        "form no command": (b"foo=bar", "application/x-www-form-urlencoded"),
        "payload not json": (b"payload=notjson", "application/x-www-form-urlencoded"),
        "payload list": (urllib.parse.urlencode({"payload": "[1]"}).encode(), "application/x-www-form-urlencoded"),
        "event without event": (json.dumps({"type": "event_callback", "event_id": "Ev1"}).encode(), "application/json"),
        "event null": (json.dumps({"type": "event_callback", "event_id": "Ev1", "event": None}).encode(), "application/json"),
        "event str": (json.dumps({"type": "event_callback", "event_id": "Ev1", "event": "x"}).encode(), "application/json"),
        "unknown event": (json.dumps({"type": "event_callback", "event_id": "Ev2", "event": {"type": "zzz"}}).encode(), "application/json"),
        "message no channel": (json.dumps({"type": "event_callback", "event_id": "Ev3", "event": {"type": "message", "thread_ts": "1.0", "ts": "2.0"}}).encode(), "application/json"),
        "mention no ts": (json.dumps({"type": "event_callback", "event_id": "Ev4", "event": {"type": "app_mention", "channel": "C1"}}).encode(), "application/json"),
        "unknown action": (urllib.parse.urlencode({"payload": json.dumps({"type": "block_actions", "actions": [{"action_id": "zzz"}]})}).encode(), "application/x-www-form-urlencoded"),
        "empty": (b"", "application/json"),
        "empty form": (b"", "application/x-www-form-urlencoded"),
        "not utf8": (b"\xff\xfe", "application/json"),
        "text plain": (b"hello", "text/plain"),
        "command payload": (urllib.parse.urlencode({"command": "/pr", "text": "payload", "channel_id": "C0DIGEST01", "user_id": "U1", "team_id": "T0TEST", "response_url": harness.slack.new_response_url()}).encode(), "application/x-www-form-urlencoded"),
        "ssl_check": (b"ssl_check=1&token=x", "application/x-www-form-urlencoded"),
        "user team none": (json.dumps({"type": "event_callback", "event_id": "Ev5", "user": {"x": 1}, "event": {"type": "zzz"}}).encode(), "application/json"),
        "enterprise weird": (json.dumps({"type": "event_callback", "enterprise": 5, "event": {"type": "zzz"}}).encode(), "application/json"),
        "url_verification": (json.dumps({"type": "url_verification", "challenge": "abc"}).encode(), "application/json"),
    }
    for name, (body, ct) in cases.items():
        r = harness.signed(body, ct)
        u = harness.signed(body, ct, secret="wrong")
        print(f"{name:22} signed={r.status_code} {r.text[:60]!r:62} unsigned={u.status_code}")
    time.sleep(0.5)
    print("slack calls", [(c.path) for c in harness.slack.requests])
