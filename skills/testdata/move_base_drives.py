#!/usr/bin/python3
"""A move_base of its own process that drives the base itself, as a real
one does: while a goal is active it publishes geometry_msgs/Twist on
cmd_vel at 10 Hz, steering toward the goal's target (x, y in the odometry
frame, read from odom), and succeeds within 0.1 m of it. On a cancel it
stops publishing (it sends no zero Twist of its own: the controller must).

Usage: move_base_drives.py __ns:=/robot1
Prints "ready" once up, "goal X Y FRAME" for each goal, "cancel" for each
cancel and "done STATE" when a goal ends.
"""
import math
import threading

import actionlib
import rospy
from geometry_msgs.msg import Twist
from move_base_msgs.msg import MoveBaseAction, MoveBaseResult
from nav_msgs.msg import Odometry

lock = threading.Lock()
pose = None  # (x, y, yaw) in the odometry frame


def say(*words):
    print(" ".join(str(w) for w in words), flush=True)


def on_odom(m):
    global pose
    q = m.pose.pose.orientation
    yaw = math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))
    with lock:
        pose = (m.pose.pose.position.x, m.pose.pose.position.y, yaw)


def clamp(v, limit):
    return max(-limit, min(limit, v))


def execute(goal):
    target = goal.target_pose
    tx, ty = target.pose.position.x, target.pose.position.y
    say("goal %.2f %.2f %s" % (tx, ty, target.header.frame_id))
    rate = rospy.Rate(10)
    while not rospy.is_shutdown():
        if server.is_preempt_requested():
            server.set_preempted(MoveBaseResult(), "cancelled")
            say("done PREEMPTED")
            return
        with lock:
            p = pose
        if p is not None:
            dx, dy = tx - p[0], ty - p[1]
            dist = math.hypot(dx, dy)
            if dist < 0.1:
                pub.publish(Twist())
                server.set_succeeded(MoveBaseResult(), "arrived")
                say("done SUCCEEDED")
                return
            turn = math.atan2(math.sin(math.atan2(dy, dx) - p[2]), math.cos(math.atan2(dy, dx) - p[2]))
            t = Twist()
            t.angular.z = clamp(1.5 * turn, 1.0)
            if abs(turn) < 0.5:
                t.linear.x = min(0.3, dist)
            pub.publish(t)
        rate.sleep()


rospy.init_node("move_base", disable_signals=True)
pub = rospy.Publisher("cmd_vel", Twist, queue_size=1)
rospy.Subscriber("odom", Odometry, on_odom)
server = actionlib.SimpleActionServer("move_base", MoveBaseAction, execute, auto_start=False)
server.register_preempt_callback(lambda: say("cancel"))
server.start()
say("ready")
rospy.spin()
