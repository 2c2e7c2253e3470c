"""Two scripted HTTP servers on 127.0.0.1 (two origins) for the client's hardening tests.

Standard library only. Prints one line, "URL_A URL_B", once both listen, then serves until
killed, until its parent process is gone, or for --lifetime seconds at most. With
--tls CERT KEY both serve HTTPS with that certificate (the pinning tests).

Each server records every request it gets (path and headers) except /seen, which returns
them as JSON. Paths:

  /doc?id=I&next=URL        a JSON:API document with one resource (type "things", id I, or
                            the server's name) and links.next when given
  /redirect?to=URL&status=N a redirect (302 by default) to URL
  /endless?n=K&hang=H       page K of an endless collection (links.next is page K+1); page H
                            answers only after --hang seconds (or when the client leaves)
  /pages?n=K&of=M&set=S     page K of M of set S (links.next to K+1 until M), with an ETag of
                            its content; 304 to a matching If-None-Match
  /bump?n=K&set=S           changes page K of set S (its content, and so its ETag)
  /seen                     the requests recorded so far, as a JSON array
"""

import argparse
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


def make_handler(name, log, hang_seconds):
    versions = {}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send_body(self, status, body, content_type="application/vnd.api+json", extra=()):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for k, v in extra:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            url = urlparse(self.path)
            q = {k: v[-1] for k, v in parse_qs(url.query).items()}
            if url.path == "/seen":
                self.send_body(200, json.dumps(log), "application/json")
                return
            log.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
            if url.path == "/doc":
                doc = {"data": [{"type": "things", "id": q.get("id", name)}]}
                if "next" in q:
                    doc["links"] = {"next": q["next"]}
                self.send_body(200, json.dumps(doc))
            elif url.path == "/redirect":
                self.send_body(int(q.get("status", "302")), "", "text/plain", [("Location", q["to"])])
            elif url.path == "/endless":
                n = int(q.get("n", "1"))
                if str(n) == q.get("hang"):
                    time.sleep(hang_seconds)
                hang = "&hang=" + q["hang"] if "hang" in q else ""
                doc = {
                    "data": [{"type": "things", "id": str(n), "attributes": {"page": n}}],
                    "links": {"next": "/endless?n=%d%s" % (n + 1, hang)},
                }
                self.send_body(200, json.dumps(doc))
            elif url.path == "/pages":
                n, of, set_ = int(q.get("n", "1")), int(q.get("of", "1")), q.get("set", "")
                version = versions.get((set_, n), 0)
                doc = {"data": [{"type": "things", "id": "%d-%d" % (n, k), "attributes": {"page": n, "version": version}}
                                for k in range(3)]}
                if n < of:
                    doc["links"] = {"next": "/pages?n=%d&of=%d&set=%s" % (n + 1, of, set_)}
                etag = '"p%d-v%d"' % (n, version)
                if self.headers.get("If-None-Match") == etag:
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self.send_body(200, json.dumps(doc), extra=[("ETag", etag)])
            elif url.path == "/bump":
                key = (q.get("set", ""), int(q.get("n", "1")))
                versions[key] = versions.get(key, 0) + 1
                self.send_body(200, "{}", "application/json")
            else:
                self.send_body(404, '{"errors":[{"status":"404"}]}')

    return Handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lifetime", type=float, default=1800)
    p.add_argument("--hang", type=float, default=30)
    p.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    args = p.parse_args()
    context = None
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls[0], args.tls[1])
    parent = os.getppid()
    servers = []
    for name in ("a", "b"):
        server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(name, [], args.hang))
        server.daemon_threads = True
        # A client that drops the connection (a refused certificate) is no error here.
        server.handle_error = lambda request, address: None
        if context:
            # The handshake happens on the handler's thread (a failed one ends only that request).
            server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    scheme = "https" if context else "http"
    print(" ".join("%s://127.0.0.1:%d" % (scheme, s.server_address[1]) for s in servers), flush=True)
    deadline = time.monotonic() + args.lifetime
    while time.monotonic() < deadline and os.getppid() == parent:
        time.sleep(0.2)
    sys.exit(0)


if __name__ == "__main__":
    main()
