"""A Groot2-like client over libzmq (Debian's python3-zmq), driven by the
Go tests: one JSON command per line on stdin, one JSON answer per line on
stdout. Frames travel as hex.

  {"op": "req", "frames": ["54...", ...]}  -> {"frames": [...]} or {"error": "timeout"}
  {"op": "sub"}                            -> {"frames": [...]} or {"error": "timeout"}
"""
import json
import sys
import time

import zmq

port = int(sys.argv[1])
ctx = zmq.Context()
req = ctx.socket(zmq.REQ)
req.setsockopt(zmq.LINGER, 0)
req.setsockopt(zmq.RCVTIMEO, 5000)
req.connect("tcp://127.0.0.1:%d" % port)
sub = ctx.socket(zmq.SUB)
sub.setsockopt(zmq.LINGER, 0)
sub.setsockopt(zmq.RCVTIMEO, 5000)
sub.setsockopt(zmq.SUBSCRIBE, b"")
sub.connect("tcp://127.0.0.1:%d" % (port + 1))
# ZeroMQ's slow joiner: a PUB drops what it sends before the subscription
# has reached it. Groot2 is connected long before a breakpoint; so be we.
time.sleep(0.5)
print(json.dumps({"ready": True}), flush=True)

for line in sys.stdin:
    cmd = json.loads(line)
    try:
        if cmd["op"] == "req":
            req.send_multipart([bytes.fromhex(f) for f in cmd["frames"]])
            frames = req.recv_multipart()
        else:
            frames = sub.recv_multipart()
        print(json.dumps({"frames": [f.hex() for f in frames]}), flush=True)
    except zmq.Again:
        print(json.dumps({"error": "timeout"}), flush=True)
        # a REQ socket that timed out must be replaced
        req.close()
        req = ctx.socket(zmq.REQ)
        req.setsockopt(zmq.LINGER, 0)
        req.setsockopt(zmq.RCVTIMEO, 5000)
        req.connect("tcp://127.0.0.1:%d" % port)
