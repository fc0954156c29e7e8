#!/usr/bin/env python3
"""Replay recorded Bugzilla 5.2 exchanges against a server and compare.

usage: compare-recordings.py BASE_URL RECORDINGS_DIR

Sends every recordings/NN-*.json request, in order (they build on each other:
9374/9375 are created, then commented, ...), to BASE_URL and prints TAP, one
test per recording.  A response matches when it has the same HTTP status, the
same Content-Type, an ETag, chunked transfer encoding, and a JSON body with
the same set of keys at every level, the same JSON types (an integer 0/1 is
not a boolean), and the same values except where a value depends on the
clock (times, update tokens) or on the server's install path (the text of a
32000 parse error).  Lists are compared element by element; where Bugzilla's
order is a Perl hash order (history changes), as multisets.  A bug's history
entries are flattened first, because grouping depends on which second each
change fell in.

Recorded cursors (last_change_time=, new_since=) are shifted by the offset
between the recorded server's clock and ours, learned from the times in
earlier answers, so that "inclusive" and "strict" are tested against the
same instants.
"""
import http.client
import json
import os
import re
import sys
import urllib.parse
from datetime import datetime, timedelta, timezone

VOLATILE = {"creation_time", "last_change_time", "time", "when", "db_time",
            "web_time", "web_time_utc", "update_token"}
# learned from bug and comment times, not db_time: the recorded "now" and
# ours are not the same distance from the seeding
TIME_KEYS = {"creation_time", "last_change_time"}
TIME_RE = re.compile(r"(\d{4}-\d{2}-\d{2})([T+ ]|%20)(\d{2}:\d{2}:\d{2})(Z?)")


def jtype(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def parse_time(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)


class Clock:
    """Maps the recorded server's times to ours."""

    def __init__(self):
        self.offset = None

    def learn(self, want, got):
        if self.offset is not None:
            return
        if isinstance(want, dict) and isinstance(got, dict):
            for k in TIME_KEYS:
                if isinstance(want.get(k), str) and isinstance(got.get(k), str):
                    try:
                        self.offset = parse_time(got[k]) - parse_time(want[k])
                        return
                    except ValueError:
                        pass
            for k in want:
                if k in got:
                    self.learn(want[k], got[k])
        elif isinstance(want, list) and isinstance(got, list):
            for a, b in zip(want, got):
                self.learn(a, b)

    def shift_path(self, path):
        if self.offset is None:
            return path

        def sub(m):
            t = datetime.strptime(m.group(1) + " " + m.group(3), "%Y-%m-%d %H:%M:%S")
            # only instants near the recording session, not 2000 or 2099
            if abs(t.year - 2026) > 0:
                return m.group(0)
            t = t + self.offset
            return t.strftime("%Y-%m-%d") + m.group(2) + t.strftime("%H:%M:%S") + m.group(4)

        return TIME_RE.sub(sub, path)


def compare(want, got, path, errors, code=None):
    if jtype(want) != jtype(got):
        errors.append("%s: type %s, want %s (got %r)" % (path, jtype(got), jtype(want),
                                                         str(got)[:80]))
        return
    if isinstance(want, dict):
        if set(want) != set(got):
            missing = sorted(set(want) - set(got))
            extra = sorted(set(got) - set(want))
            errors.append("%s: keys differ: missing %s, extra %s" % (path, missing, extra))
        if "history" in want and isinstance(want["history"], list):
            want = dict(want, history=flatten_history(want["history"]))
            got = dict(got, history=flatten_history(got.get("history", [])))
        for k in want:
            if k not in got:
                continue
            if k in VOLATILE:
                compare_shape(want[k], got[k], path + "." + k, errors)
            elif k == "message" and code == 32000:
                compare_shape(want[k], got[k], path + "." + k, errors)
            else:
                compare(want[k], got[k], path + "." + k, errors, code)
        return
    if isinstance(want, list):
        if len(want) != len(got):
            errors.append("%s: %d elements, want %d" % (path, len(got), len(want)))
            return
        sub = []
        for i, (a, b) in enumerate(zip(want, got)):
            compare(a, b, "%s[%d]" % (path, i), sub, code)
        if sub and len(want) > 1 and all(isinstance(x, dict) for x in want):
            if not match_unordered(want, got, path, code):
                sub = []
        errors.extend(sub)
        return
    if want != got:
        errors.append("%s: %r, want %r" % (path, str(got)[:120], str(want)[:120]))


def compare_shape(want, got, path, errors):
    if jtype(want) != jtype(got):
        errors.append("%s: type %s, want %s" % (path, jtype(got), jtype(want)))
    elif isinstance(want, str) and TIME_RE.fullmatch(want) and not TIME_RE.fullmatch(got):
        errors.append("%s: %r is not a Bugzilla time" % (path, got))


def match_unordered(want, got, path, code):
    left = list(range(len(got)))
    for i, a in enumerate(want):
        for j in left:
            e = []
            compare(a, got[j], path, e, code)
            if not e:
                left.remove(j)
                break
        else:
            return ["%s: no element matches %s" % (path, json.dumps(a)[:200])]
    return []


def flatten_history(hist):
    """One pseudo entry holding every change, who/when from the first."""
    if not hist or not all(isinstance(h, dict) for h in hist):
        return hist
    changes = []
    for h in hist:
        changes.extend(h.get("changes", []))
    first = dict(hist[0])
    first["changes"] = changes
    return [first]


def send(base, req, clock):
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    path = clock.shift_path(req["path"])
    body = req.get("body")
    headers = dict(req.get("headers") or {})
    data = body.encode("utf-8") if body is not None else None
    conn.request(req["method"], path, body=data, headers=headers)
    resp = conn.getresponse()
    raw = resp.read()
    hdrs = {k.lower(): v for k, v in resp.getheaders()}
    conn.close()
    return resp.status, hdrs, raw, path


def check_one(base, rec, clock):
    errors = []
    want = rec["response"]
    status, hdrs, raw, path = send(base, rec["request"], clock)
    if status != want["status"]:
        errors.append("status %d, want %d" % (status, want["status"]))
    whdrs = {k.lower(): v for k, v in want["headers"]}
    if hdrs.get("content-type") != whdrs.get("content-type"):
        errors.append("Content-Type %r, want %r" % (hdrs.get("content-type"),
                                                   whdrs.get("content-type")))
    if "etag" not in hdrs:
        errors.append("no ETag")
    if hdrs.get("transfer-encoding") != "chunked" or "content-length" in hdrs:
        errors.append("not chunked (Transfer-Encoding %r, Content-Length %r)" %
                      (hdrs.get("transfer-encoding"), hdrs.get("content-length")))
    try:
        wbody = json.loads(want["body"])
        gbody = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        errors.append("body is not JSON: %s: %r" % (e, raw[:200]))
        return errors, path
    code = wbody.get("code") if isinstance(wbody, dict) else None
    compare(wbody, gbody, "body", errors, code)
    clock.learn(wbody, gbody)
    return errors, path


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    base, rdir = sys.argv[1], sys.argv[2]
    files = sorted(f for f in os.listdir(rdir) if re.match(r"\d+-.*\.json$", f))
    if not files:
        print("1..0 # SKIP no recordings in %s" % rdir)
        return 0
    print("1..%d" % len(files))
    clock = Clock()
    failed = 0
    for n, f in enumerate(files, 1):
        with open(os.path.join(rdir, f)) as fh:
            rec = json.load(fh)
        req = rec["request"]
        try:
            errors, path = check_one(base, rec, clock)
        except Exception as e:  # a dead server must fail the test, not the script
            errors, path = ["request failed: %s" % e], req["path"]
        shown = re.sub(r"(api_key=)[^&]*", r"\1REDACTED", path)
        desc = "%s: %s %s" % (f[:-5], req["method"], shown[:100])
        if errors:
            failed += 1
            print("not ok %d - %s" % (n, desc))
            for e in errors[:15]:
                print("#   %s" % e)
        else:
            print("ok %d - %s" % (n, desc))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
