"""Sends Groot2's requests to a server over libzmq (Debian's python3-zmq)
and writes every reply as JSON: the same session is sent to BT.CPP 4.10's
Groot2Publisher (bt.cpp/groot2_session.json) and to btrobot's server, and
the Go test compares the replies field by field.

usage: session.py PORT OUT.json
"""
import json
import re
import struct
import sys

import zmq

port, out = int(sys.argv[1]), sys.argv[2]
ctx = zmq.Context()
req = ctx.socket(zmq.REQ)
req.setsockopt(zmq.LINGER, 0)
req.setsockopt(zmq.RCVTIMEO, 5000)
req.connect("tcp://127.0.0.1:%d" % port)


def header(typ, rid):
    return struct.pack("<BBI", 2, ord(typ), rid)


replies = []


def send(name, frames):
    req.send_multipart(frames)
    got = req.recv_multipart()
    replies.append({"name": name, "request": [f.hex() for f in frames], "reply": [f.hex() for f in got]})
    return got


tree = send("full tree", [header("T", 1)])[1].decode()
step = re.search(r'<BehaviorTree ID="Step" _fullpath="([^"]*)"', tree).group(1)
send("statuses", [header("S", 2)])
send("blackboards", [header("B", 3), ("Main;" + step).encode()])
send("insert a hook", [header("I", 4), b'{"enabled":true,"uid":5,"mode":1,"once":false,"desired_status":"FAILURE","position":0}'])
send("dump the hooks", [header("D", 5)])
send("insert hooks", [header("I", 6), b'[{"enabled":false,"uid":2,"mode":0,"once":true,"desired_status":"SUCCESS","position":1},{"enabled":true,"uid":5,"mode":0,"once":true,"desired_status":"SKIPPED","position":0}]'])
send("dump the hooks again", [header("D", 7)])
send("remove a hook", [header("R", 8), b'{"uid":5,"position":0}'])
send("remove a hook that is not there", [header("R", 9), b'{"uid":5,"position":0}'])
send("unlock a breakpoint that is not there", [header("U", 10), b'{"uid":7,"desired_status":"SUCCESS","position":0,"remove_when_done":true}'])
send("remove all hooks", [header("A", 11)])
send("dump no hooks", [header("D", 12)])
send("disable all hooks", [header("X", 13)])
send("start recording", [header("r", 14), b"start"])
send("transitions of no tick", [header("t", 15)])
send("stop recording", [header("r", 16), b"stop"])
send("a wrong header", [b"\x02T"])
send("an unknown request", [header("?", 18)])
send("blackboards without names", [header("B", 19)])
with open(out, "w") as f:
    json.dump({"step": step, "replies": replies}, f, indent=1)
