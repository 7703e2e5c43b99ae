#!/usr/bin/python3
"""A move_base action server written with Debian's rospy actionlib, for
NavigateTo's interop test.

Usage: move_base.py        (serves move_base_msgs/MoveBaseAction on move_base)

The goal's target_pose.pose.position.x selects how it behaves:
  1  drive: feedback at a third, two thirds and the whole way, then succeed
  2  abort
  3  hold: feedback every 50 ms until cancelled, then 0.5 s before it ends
  4  reject
Prints "ready" once up, "goal X FRAME" for each goal, "cancel" when a goal
is cancelled and "done STATE" when one ends.
"""
import threading
import time

import actionlib
import rospy
from move_base_msgs.msg import MoveBaseAction, MoveBaseFeedback, MoveBaseResult

cancelled = set()
lock = threading.Lock()


def say(*words):
    print(" ".join(str(w) for w in words), flush=True)


def is_cancelled(gh):
    # get_goal_id takes the action server's lock, which on_cancel is called
    # under: never take it inside ours (the two threads deadlock).
    goal_id = gh.get_goal_id().id
    with lock:
        return goal_id in cancelled


def feedback(gh, pose, fraction):
    fb = MoveBaseFeedback()
    fb.base_position.header.frame_id = "map"
    fb.base_position.pose.position.x = pose.position.x * fraction
    fb.base_position.pose.position.y = pose.position.y * fraction
    fb.base_position.pose.orientation.w = 1.0
    gh.publish_feedback(fb)


def work(gh):
    pose = gh.get_goal().target_pose.pose
    mode = round(pose.position.x)
    if mode == 1:
        for step in (1, 2, 3):
            time.sleep(0.05)
            feedback(gh, pose, step / 3.0)
        gh.set_succeeded(MoveBaseResult(), "arrived")
        say("done SUCCEEDED")
    elif mode == 2:
        time.sleep(0.05)
        gh.set_aborted(MoveBaseResult(), "no path")
        say("done ABORTED")
    else:
        while not rospy.is_shutdown():
            if is_cancelled(gh):
                # A slow server: a halt that waited for the cancel to be
                # acknowledged would take this long.
                time.sleep(0.5)
                gh.set_canceled(MoveBaseResult(), "cancelled")
                say("done PREEMPTED")
                return
            feedback(gh, pose, 0.5)
            time.sleep(0.05)


def on_goal(gh):
    goal = gh.get_goal().target_pose
    say("goal", round(goal.pose.position.x), goal.header.frame_id)
    if round(goal.pose.position.x) == 4:
        gh.set_rejected(MoveBaseResult(), "rejected")
        say("done REJECTED")
        return
    gh.set_accepted()
    threading.Thread(target=work, args=(gh,), daemon=True).start()


def on_cancel(gh):
    say("cancel")
    goal_id = gh.get_goal_id().id
    with lock:
        cancelled.add(goal_id)


rospy.init_node("move_base", disable_signals=True)
server = actionlib.ActionServer("move_base", MoveBaseAction, on_goal, on_cancel, auto_start=False)
server.start()
say("ready")
rospy.spin()
