#!/usr/bin/env python3
"""A scripted Kubernetes API server for api_client_test: argv[1] is a JSON
file mapping a request's path and query (the longest key that starts it
wins) to {"status": N, "lines": [...], "headers": {...}} or to a list of
those, the n-th for the key's n-th request (the last one repeated); the
answer is those lines (each as JSON, or a {"raw": TEXT} as its text, as
a pod's log comes), each sent in small pieces with a pause, and the
connection closed after them. Each request's method and path are appended
to argv[1] + ".requests" (GET left unsaid). Listens on a free loopback
port; prints "ready PORT" once up."""
import http.server, json, sys, time

script = json.load(open(sys.argv[1]))
asked = {}  # requests per key so far


class Scripted(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with open(sys.argv[1] + ".requests", "a") as log:
            log.write(("" if self.command == "GET" else self.command + " ") + self.path + "\n")
        keys = [k for k in script if self.path.startswith(k)]
        answer = {"status": 404, "lines": []}
        if keys:
            key = max(keys, key=len)
            answer = script[key]
            if isinstance(answer, list):
                n = asked.get(key, 0)
                asked[key] = n + 1
                answer = answer[min(n, len(answer) - 1)]
        self.send_response(answer["status"])
        self.send_header("Content-Type", "application/json")
        for name, value in answer.get("headers", {}).items():
            self.send_header(name, value)
        self.end_headers()
        for line in answer["lines"]:
            raw = isinstance(line, dict) and "raw" in line
            data = (line["raw"] if raw else json.dumps(line) + "\n").encode()
            for i in range(0, len(data), 7):  # events split across chunks
                self.wfile.write(data[i:i + 7])
                self.wfile.flush()
            time.sleep(0.01)

    do_POST = do_DELETE = do_GET

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Scripted)
print("ready", server.server_address[1], flush=True)
server.serve_forever()
