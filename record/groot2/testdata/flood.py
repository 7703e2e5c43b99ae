"""A DEALER over libzmq (Debian's python3-zmq) that floods a Groot2
server with requests and reads none of the replies: the Go tests check
that other clients are still answered meanwhile.

usage: flood.py PORT COUNT
Prints {"sent": N} once N = 1000 requests are out, then sends the rest
(until COUNT, or until a send has waited 2 s), prints {"sent": N} again,
and holds the connection, reading nothing, until stdin closes.
"""
import json
import struct
import sys

import zmq

port, count = int(sys.argv[1]), int(sys.argv[2])
ctx = zmq.Context()
dealer = ctx.socket(zmq.DEALER)
dealer.setsockopt(zmq.LINGER, 0)
dealer.setsockopt(zmq.SNDTIMEO, 2000)
dealer.connect("tcp://127.0.0.1:%d" % port)
sent = 0
try:
    for i in range(count):
        # the REQ envelope's empty delimiter, then a FULL_TREE request
        dealer.send_multipart([b"", struct.pack("<BBI", 2, ord("T"), i)])
        sent += 1
        if sent == 1000:
            print(json.dumps({"sent": sent}), flush=True)
except zmq.Again:
    pass
if sent < 1000:
    print(json.dumps({"sent": sent}), flush=True)
print(json.dumps({"sent": sent}), flush=True)
sys.stdin.read()
