#!/usr/bin/python3
"""A lockstep peer in rospy: drives a robot with a fixed command sequence.

Usage: lockstep_peer.py CMD_VEL_TOPIC STEPS

At each 100 ms of simulated time k (k = 0 .. STEPS-1) it publishes the
command (0.3 m/s on even k, 0.2 on odd, turning 0.5 * (k % 5 - 2) rad/s) on
CMD_VEL_TOPIC, then tells the simulator on /sim/lockstep that it may run to
(k + 1) * 100 ms and that it has sent k + 1 commands. It leaves at the end.
Prints "ready" once the simulator subscribes to its commands, "done" at the
end.
"""
import sys
import time

import rospy
from geometry_msgs.msg import Twist
from std_msgs.msg import Header

topic, steps = sys.argv[1], int(sys.argv[2])
rospy.init_node("py_peer", disable_signals=True)
ack = rospy.Publisher("/sim/lockstep", Header, queue_size=10, latch=True)
cmd = rospy.Publisher(topic, Twist, queue_size=100)
# Commands sent before the simulator is connected would be lost, and it
# would wait for them for ever.
while cmd.get_num_connections() == 0:
    time.sleep(0.01)
print("ready", flush=True)
period = rospy.Duration(0, 100000000)
sent = 0
for k in range(steps):
    due = rospy.Time(0) + period * k
    while rospy.get_rostime() < due:
        time.sleep(0.0005)
    t = Twist()
    t.linear.x = 0.3 if k % 2 == 0 else 0.2
    t.angular.z = 0.5 * (k % 5 - 2)
    cmd.publish(t)
    sent += 1
    ack.publish(Header(seq=sent, stamp=due + period, frame_id=rospy.get_name()))
ack.publish(Header(seq=sent, stamp=rospy.Time(0), frame_id=rospy.get_name()))
time.sleep(0.5)
print("done", flush=True)
