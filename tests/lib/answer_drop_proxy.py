#!/usr/bin/env python3
"""answer_drop_proxy.py PORT UPSTREAM FLAG: an HTTP proxy to UPSTREAM (a
LAVA server's URL) on 127.0.0.1:PORT that passes everything through, except
that while the file FLAG exists, the next POST to /api/v0.2/jobs/ is
forwarded, LAVA's answer read, and the client's connection closed without
it: a submission that reached LAVA whose answer was lost on the way back.
FLAG is then removed and FLAG.done says "dropped" and what LAVA answered."""
import http.client
import http.server
import os
import sys
import urllib.parse

port, upstream, flag = int(sys.argv[1]), urllib.parse.urlsplit(sys.argv[2]), sys.argv[3]
HOP = {"connection", "keep-alive", "transfer-encoding", "host", "content-length"}


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def forward(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        try:
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
            conn.request(self.command, self.path, body=body or None, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        except OSError:
            self.close_connection = True     # upstream down: so are we
            return
        if self.command == "POST" and self.path == "/api/v0.2/jobs/" and os.path.exists(flag):
            os.unlink(flag)
            with open(flag + ".done", "w") as f:
                f.write("dropped\n%d %s\n" % (resp.status, data.decode(errors="replace")))
            self.close_connection = True     # the answer never reaches the client
            return
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in HOP:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = forward

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Proxy).serve_forever()
