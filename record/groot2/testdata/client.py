"""Groot2's side of the protocol over libzmq (Debian's python3-zmq), driven
by the Go tests: one JSON command per line on stdin, one JSON answer per
line on stdout. Frames travel as hex.

One process serves every test of the package (a Python that imports zmq
costs more CPU than all the requests of a test): each test opens a
session, a REQ and a SUB connected to its server, and closes it when done.

  {"op": "open", "port": P}                     -> {"session": N}
  {"op": "req", "session": N, "frames": [...]}  -> {"frames": [...]} or {"error": "timeout"}
  {"op": "sub", "session": N}                   -> {"frames": [...]} or {"error": "timeout"}
  {"op": "close", "session": N}                 -> {"closed": N}
"""
import json
import sys
import time

import zmq

ctx = zmq.Context()


def connect(kind, port):
    s = ctx.socket(kind)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.RCVTIMEO, 5000)
    if kind == zmq.SUB:
        s.setsockopt(zmq.SUBSCRIBE, b"")
    s.connect("tcp://127.0.0.1:%d" % port)
    return s


class Session:
    def __init__(self, port):
        self.port = port
        self.req = connect(zmq.REQ, port)
        self.sub = connect(zmq.SUB, port + 1)
        # ZeroMQ's slow joiner: a PUB drops what it sends before the
        # subscription has reached it. Groot2 is connected long before a
        # breakpoint; so be we.
        time.sleep(0.5)

    def close(self):
        self.req.close()
        self.sub.close()


sessions = {}
opened = 0
print(json.dumps({"ready": True}), flush=True)

for line in sys.stdin:
    cmd = json.loads(line)
    op = cmd["op"]
    if op == "open":
        opened += 1
        sessions[opened] = Session(cmd["port"])
        print(json.dumps({"session": opened}), flush=True)
        continue
    s = sessions[cmd["session"]]
    if op == "close":
        s.close()
        del sessions[cmd["session"]]
        print(json.dumps({"closed": cmd["session"]}), flush=True)
        continue
    try:
        if op == "req":
            s.req.send_multipart([bytes.fromhex(f) for f in cmd["frames"]])
            frames = s.req.recv_multipart()
        else:
            frames = s.sub.recv_multipart()
        print(json.dumps({"frames": [f.hex() for f in frames]}), flush=True)
    except zmq.Again:
        print(json.dumps({"error": "timeout"}), flush=True)
        # a REQ socket that timed out must be replaced
        s.req.close()
        s.req = connect(zmq.REQ, s.port)

for s in sessions.values():
    s.close()
ctx.term()
