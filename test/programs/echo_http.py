#!/usr/bin/env python3
"""An HTTP server for http_client_test (and an engine for io_thread_errors_test): answers every request with a JSON echo of
its method, path, body and X-Test header; /hold answers with headers only and
holds the stream open, as an engine's attach or events endpoint does;
/endless (and an engine's /v1.41/events) sends a body with no end, as a
broken or hostile service might; /count/N sends N lines ("line 0" ...), a
few milliseconds apart, and ends;
events for a run named "garbage" are one event of the wrong types, then
the stream is held open.
Listens on a Unix socket (argument) or on a free loopback port, each
request on a thread of its own; prints
"ready PORT" (0 for the socket) once up."""
import http.server, json, os, socketserver, sys, time


class Echo(http.server.BaseHTTPRequestHandler):
    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("latin-1")
        if self.path.startswith("/v1.41/events") and "garbage" in self.path:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b'{"Action":5,"Actor":{"ID":7},"timeNano":"soon"}\n')
            self.wfile.flush()
            time.sleep(600)
            return
        if self.path.startswith(("/endless", "/v1.41/events")):
            self.send_response(200)
            piece = b"x" * 65536
            try:
                self.end_headers()
                while True:
                    self.wfile.write(piece)
            except (BrokenPipeError, ConnectionResetError):
                return
        if self.path.startswith("/count/"):
            self.send_response(200)
            self.end_headers()
            for i in range(int(self.path[len("/count/"):])):
                self.wfile.write(b"line %d\n" % i)
                self.wfile.flush()
                time.sleep(0.005)
            return
        if self.path == "/hold":
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.docker.raw-stream")
            self.end_headers()
            self.wfile.flush()
            time.sleep(600)
            return
        out = json.dumps({"method": self.command, "path": self.path, "body": body,
                          "x_test": self.headers.get("X-Test", "")}).encode()
        status = 404 if self.path.startswith("/missing") else 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Reply", "yes")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, *args):
        pass


# Each request on a thread of its own: streams are held open side by side,
# and many connect at once (a Unix socket refuses those past its backlog).
class UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 64

    def get_request(self):
        request, _ = super().get_request()
        return request, ("local", 0)


if len(sys.argv) > 1:
    server = UnixHTTPServer(sys.argv[1], Echo)
    port = 0
else:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    port = server.server_address[1]
print("ready", port, flush=True)
server.serve_forever()
