#!/usr/bin/python3
"""A move_base client built on actionlib's ActionClient.

Usage: move_base_client.py SERVER MODE:X:Y:YAW...

Sends the goals one after the other, each at (X, Y, YAW) in the map frame,
to SERVER; goal I (from 0) is sent once the parameter /move_base_client/go
is I or more, so that the test checks the robot after a goal before the
next one moves it. One process for all goals: a start costs ~0.4 core-s
(rospy and actionlib's import).
MODE wait:   wait for the result.
MODE cancel: cancel the goal after its first feedback, then wait.
Prints "ready" once the server is there, then for goal I "goal I feedback
FRAME X Y" for its first feedback, and "goal I state NAME" (actionlib's
GoalStatus name) at its end.

Not SimpleActionClient: it drops the transitions that come before its
send_goal has returned ("Got a transition callback on a goal handle that
we're not tracking"), which a server that ends a goal at once (a goal
inside a wall) makes happen, and then waits for ever. ActionClient calls
back each goal's handle with that goal's transitions only.
"""
import math
import sys
import threading

import actionlib
import rospy
from actionlib.action_client import CommState
from actionlib_msgs.msg import GoalStatus
from move_base_msgs.msg import MoveBaseAction, MoveBaseGoal

server = sys.argv[1]
goals = [g.split(":") for g in sys.argv[2:]]

rospy.init_node("move_base_client", disable_signals=True)
client = actionlib.ActionClient(server, MoveBaseAction)
client.wait_for_server()
print("ready", flush=True)
names = {v: k for k, v in vars(GoalStatus).items() if k.isupper() and isinstance(v, int)}


def run(i, mode, x, y, yaw):
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
            print("goal %d feedback %s %.2f %.2f" % (i, fb.base_position.header.frame_id, p.x, p.y), flush=True)
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
    print("goal %d state %s" % (i, names.get(ended["state"], ended["state"])), flush=True)


for i, (mode, x, y, yaw) in enumerate(goals):
    while rospy.get_param("/move_base_client/go", -1) < i:
        rospy.sleep(0.02)
    run(i, mode, float(x), float(y), float(yaw))
rospy.spin()
