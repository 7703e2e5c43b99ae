"""Prints every diagnostic_msgs/DiagnosticArray on /diagnostics as one JSON
line, read with Debian's rospy: {"stamp": s, "status": [{"level", "name",
"message", "hardware_id", "values": {key: value}}]}. Prints "ready" once
subscribed."""
import json
import sys

import rospy
from diagnostic_msgs.msg import DiagnosticArray


def on_array(msg):
    out = {"stamp": msg.header.stamp.to_sec(), "status": []}
    for s in msg.status:
        level = s.level if isinstance(s.level, int) else ord(s.level)
        out["status"].append({
            "level": level, "name": s.name, "message": s.message,
            "hardware_id": s.hardware_id,
            "values": {kv.key: kv.value for kv in s.values},
        })
    print(json.dumps(out), flush=True)


rospy.init_node("diagnostics_listen", anonymous=True, disable_signals=True)
rospy.Subscriber("/diagnostics", DiagnosticArray, on_array, queue_size=100)
print("ready", flush=True)
rospy.spin()
