#!/usr/bin/python3
"""A move_base client built on actionlib's SimpleActionClient.

Usage: move_base_client.py SERVER MODE X Y YAW

Sends one goal at (X, Y, YAW) in the map frame to SERVER.
MODE wait:   wait for the result.
MODE cancel: cancel the goal after its first feedback, then wait.
Prints "ready" once the server is there, "feedback FRAME X Y" for the first
feedback, and "state NAME" (actionlib's GoalStatus name) at the end.
"""
import math
import sys
import threading

import actionlib
import rospy
from actionlib_msgs.msg import GoalStatus
from move_base_msgs.msg import MoveBaseAction, MoveBaseGoal

server, mode = sys.argv[1], sys.argv[2]
x, y, yaw = (float(v) for v in sys.argv[3:6])

rospy.init_node("move_base_client", disable_signals=True)
client = actionlib.SimpleActionClient(server, MoveBaseAction)
client.wait_for_server()
print("ready", flush=True)

first = threading.Event()


def on_feedback(fb):
    if not first.is_set():
        p = fb.base_position.pose.position
        print("feedback %s %.2f %.2f" % (fb.base_position.header.frame_id, p.x, p.y), flush=True)
        first.set()


goal = MoveBaseGoal()
goal.target_pose.header.frame_id = "map"
goal.target_pose.header.stamp = rospy.Time.now()
goal.target_pose.pose.position.x = x
goal.target_pose.pose.position.y = y
goal.target_pose.pose.orientation.z = math.sin(yaw / 2)
goal.target_pose.pose.orientation.w = math.cos(yaw / 2)
client.send_goal(goal, feedback_cb=on_feedback)
if mode == "cancel":
    first.wait()
    client.cancel_goal()
client.wait_for_result()
names = {v: k for k, v in vars(GoalStatus).items() if k.isupper() and isinstance(v, int)}
print("state", names.get(client.get_state(), client.get_state()), flush=True)
