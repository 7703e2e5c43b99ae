#!/usr/bin/python3
"""A nav_msgs/GetPlan service, like move_base's make_plan.

Usage: plan_server.py [NAME]   (default: make_plan)

action_server.py serves it too, in its node, with serve(NAME).

The plan goes straight from start to goal in two poses. A goal with a
negative x makes the call fail; a goal at x = 99 answers after ten seconds.
Prints "ready", then "call X Y" for every request and "abandoned" when a
slow call's client went away.
"""
import sys
import time

import rospy
from geometry_msgs.msg import PoseStamped
from nav_msgs.srv import GetPlan, GetPlanResponse

NAME = sys.argv[1] if len(sys.argv) > 1 else "make_plan"


def handle(req):
    x, y = req.goal.pose.position.x, req.goal.pose.position.y
    print("call", x, y, "%.6f" % time.time(), flush=True)
    if x < 0:
        raise rospy.ServiceException("no plan to a negative x")
    if x == 99:
        time.sleep(10)
    res = GetPlanResponse()
    res.plan.header.frame_id = "map"
    res.plan.poses = [req.start, req.goal]
    return res


def serve(name):
    rospy.Service(name, GetPlan, handle)


if __name__ == "__main__":
    rospy.init_node("test_plan_server", disable_signals=True)
    serve(NAME)
    print("ready", flush=True)
    rospy.spin()
