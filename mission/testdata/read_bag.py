"""Reads a bag with Debian's python rosbag, rebuilding each type from the
definition the bag stored (no btrobot_msgs package is installed), and
prints one JSON line per transition in the btrobot_msgs/Transitions
messages of TOPIC:
  {"msg", "msg_stamp", "run_id", "seq", "stamp", "uid", "path", "type", "from", "to", "reason"}
then a last line {"counts": {topic: n}, "type": T, "md5": stored,
"genpy_md5": genpy's sum of the stored definition}.

usage: read_bag.py BAG TOPIC"""
import json
import sys

import genpy.dynamic
import rosbag

bag_path, topic = sys.argv[1], sys.argv[2]
counts = {}
info = {}
with rosbag.Bag(bag_path) as bag:
    for c in bag._connections.values():
        if c.topic == topic:
            cls = genpy.dynamic.generate_dynamic(c.datatype, c.msg_def)[c.datatype]
            info = {"type": c.datatype, "md5": c.md5sum, "genpy_md5": cls._md5sum}
    for t, msg, _ in bag.read_messages():
        counts[t] = counts.get(t, 0) + 1
        if t == topic:
            for tr in msg.transitions:
                print(json.dumps({
                    "msg": msg.header.seq, "msg_stamp": msg.header.stamp.to_nsec(), "run_id": msg.run_id,
                    "seq": tr.seq, "stamp": tr.stamp.to_nsec(), "uid": tr.uid, "path": tr.path,
                    "type": tr.type, "from": tr.previous_status, "to": tr.status, "reason": tr.reason,
                }))
info["counts"] = counts
print(json.dumps(info))
