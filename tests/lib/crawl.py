#!/usr/bin/env python3
"""crawl.py BASE PATH...: follow every internal link of the dashboard.

Starts at each PATH under BASE and follows, breadth first, every link that
stays on BASE: href and src attributes of HTML and Atom (relative, or
absolute under BASE), and in JSON every string that is a path ("/job/1/x.log")
or a URL under BASE.  Prints one line per broken link, "STATUS URL <- PAGE",
then "visited N"; exits 1 when a link is broken.  The tracker's own links
(another host) are not followed.
"""
import html.parser
import http.client
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

LIMIT = 3000
# a path or URL, not free text that happens to start with "/"
URLISH = re.compile(r"^(https?://[^\s/]+)?/[\w.~%/?=&+-]*$")


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.found.append(value)

    handle_startendtag = handle_starttag


def json_links(node, out):
    if isinstance(node, dict):
        for v in node.values():
            json_links(v, out)
    elif isinstance(node, list):
        for v in node:
            json_links(v, out)
    elif isinstance(node, str) and URLISH.match(node):
        out.append(node)


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, "", b""
    except (OSError, http.client.HTTPException) as e:
        # a dropped connection is a broken link too, named by its URL
        return "closed (%s)" % type(e).__name__, "", b""


def main():
    base = sys.argv[1].rstrip("/")
    todo = [(base + p, "(start)") for p in sys.argv[2:]]
    seen = {u for u, _ in todo}
    broken = 0
    while todo and len(seen) < LIMIT:
        url, page = todo.pop(0)
        status, ctype, body = fetch(url)
        if status != 200:
            print(status, url[len(base):], "<-", page)
            broken += 1
            continue
        found = []
        if "html" in ctype or "xml" in ctype:
            p = Links()
            p.feed(body.decode("utf-8", "replace"))
            found = p.found
        elif "json" in ctype:
            json_links(json.loads(body), found)
        for link in found:
            link = urllib.parse.urljoin(url, link).split("#")[0]
            if not link.startswith(base + "/") or link in seen:
                continue
            seen.add(link)
            todo.append((link, url[len(base):]))
    print("visited", len(seen))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
