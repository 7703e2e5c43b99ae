#!/usr/bin/python3
"""A move_base client built on actionlib's ActionClient.

Usage: move_base_client.py SERVER MODE X Y YAW

Sends one goal at (X, Y, YAW) in the map frame to SERVER.
MODE wait:   wait for the result.
MODE cancel: cancel the goal after its first feedback, then wait.
Prints "ready" once the server is there, "feedback FRAME X Y" for the first
feedback, and "state NAME" (actionlib's GoalStatus name) at the end.

Not SimpleActionClient: it drops the transitions that come before its
send_goal has returned ("Got a transition callback on a goal handle that
we're not tracking"), which a server that ends a goal at once (a goal
inside a wall) makes happen, and then waits for ever. With one goal per
process, every transition is this goal's.
"""
import math
import sys
import threading

import actionlib
import rospy
from actionlib.action_client import CommState
from actionlib_msgs.msg import GoalStatus
from move_base_msgs.msg import MoveBaseAction, MoveBaseGoal

server, mode = sys.argv[1], sys.argv[2]
x, y, yaw = (float(v) for v in sys.argv[3:6])

rospy.init_node("move_base_client", disable_signals=True)
client = actionlib.ActionClient(server, MoveBaseAction)
client.wait_for_server()
print("ready", flush=True)

first = threading.Event()
done = threading.Event()
ended = {}


def on_transition(gh):
    if gh.get_comm_state() == CommState.DONE and not done.is_set():
        ended["state"] = gh.get_goal_status()
        done.set()


def on_feedback(gh, fb):
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
gh = client.send_goal(goal, on_transition, on_feedback)
if mode == "cancel":
    first.wait()
    gh.cancel()
done.wait()
names = {v: k for k, v in vars(GoalStatus).items() if k.isupper() and isinstance(v, int)}
print("state", names.get(ended["state"], ended["state"]), flush=True)
