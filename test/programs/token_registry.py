#!/usr/bin/env python3
"""A registry that asks for a Bearer token, for registry_push_test: the
token auth flow of real registries (a 401 naming a realm; the realm asked
with HTTP Basic for a token with a scope) in front of the few registry API
v2 calls a push makes, blobs and manifests kept in memory. The credentials
are argv[1] and argv[2]; the token is issued only for scope
repository:NAME:pull,push. Prints "ready PORT" once up.

argv[3], when given, names another host (127.0.0.2, a server of its own)
that the registry sends fiber to: "upload-elsewhere" (upload Locations
there) or "realm-elsewhere" (the token realm there, giving tokens to
anyone). That host prints "elsewhere AUTHORIZATION" for each request, "-"
when it came without one, and takes what it is given."""
import base64, http.server, json, sys, threading, urllib.parse, uuid

USER, PASSWORD = sys.argv[1], sys.argv[2]
MODE = sys.argv[3] if len(sys.argv) > 3 else ""
TOKEN = "t-" + uuid.uuid4().hex
blobs, uploads = set(), {}


class Elsewhere(http.server.BaseHTTPRequestHandler):
    def _handle(self):
        print("elsewhere", self.headers.get("Authorization", "-"), flush=True)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/token":
            body = json.dumps({"token": TOKEN}).encode()
        else:
            blobs.add(urllib.parse.parse_qs(url.query).get("digest", [""])[0])
            body = b""
        self.send_response(200 if url.path == "/token" else 201)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_PUT = _handle

    def log_message(self, *args):
        pass


elsewhere = None
if MODE:
    elsewhere = http.server.HTTPServer(("127.0.0.2", 0), Elsewhere)
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
    ELSEWHERE = f"http://127.0.0.2:{elsewhere.server_address[1]}"


class Registry(http.server.BaseHTTPRequestHandler):
    def _send(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _body(self):
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _token(self, url):
        basic = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        scope = urllib.parse.parse_qs(url.query).get("scope", [""])[0]
        if self.headers.get("Authorization") != basic or not scope.endswith(":pull,push"):
            return self._send(401)
        self._send(200, json.dumps({"token": TOKEN}).encode())

    def _handle(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/token":
            return self._token(url)
        body = self._body()
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            realm = f"http://127.0.0.1:{self.server.server_address[1]}/token"
            if MODE == "realm-elsewhere":
                realm = ELSEWHERE + "/token"
            return self._send(401, headers=[("WWW-Authenticate",
                                             f'Bearer realm="{realm}",service="fake",scope="repository:x:pull"')])
        parts = url.path.split("/")
        if self.command == "HEAD" and "blobs" in parts:
            return self._send(200 if parts[-1] in blobs else 404)
        if self.command == "POST" and url.path.endswith("/blobs/uploads/"):
            upload = uuid.uuid4().hex
            uploads[upload] = True
            where = ELSEWHERE if MODE == "upload-elsewhere" else ""
            return self._send(202, headers=[("Location", where + "/upload/" + upload)])
        if self.command == "PUT" and url.path.startswith("/upload/"):
            blobs.add(urllib.parse.parse_qs(url.query)["digest"][0])
            return self._send(201)
        if self.command == "PUT" and "manifests" in parts:
            return self._send(201)
        self._send(404)

    do_GET = do_HEAD = do_POST = do_PUT = _handle

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Registry)
print("ready", server.server_address[1], *([ELSEWHERE] if MODE else []), flush=True)
server.serve_forever()
