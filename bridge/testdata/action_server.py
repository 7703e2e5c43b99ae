#!/usr/bin/python3
"""A move_base-like actionlib server whose goals behave as their frame_id says.

Usage: action_server.py [NAME [PLAN]]   (default: move_base)

With PLAN, the node also serves plan_server.py's nav_msgs/GetPlan service
under that name (its lines, "call X Y T" and "abandoned", mixed with
these): one rospy process for tests of both (a start costs ~0.4 core-s).

target_pose.header.frame_id selects the behaviour of a goal:
  succeed  feedback twice, then succeed (result empty, as move_base's)
  abort    accept, then abort
  reject   reject at once
  hold     run until cancelled, publishing feedback every 50 ms; end 0.5 s
           after the cancel
  slow     succeed after two seconds
Every event is printed with the wall time, for the test to measure:
  "goal MODE T", "cancel MODE T", "done MODE STATE".
"""
import faulthandler
import sys
import threading
import time

import actionlib
import rospy
from move_base_msgs.msg import MoveBaseAction, MoveBaseFeedback, MoveBaseResult

NAME = sys.argv[1] if len(sys.argv) > 1 else "move_base"
PLAN = sys.argv[2] if len(sys.argv) > 2 else ""
cancelled = set()
lock = threading.Lock()


def say(*words):
    print(" ".join(str(w) for w in words), flush=True)


def mode_of(gh):
    return gh.get_goal().target_pose.header.frame_id


def is_cancelled(gh):
    # get_goal_id takes the action server's lock, which on_cancel is called
    # under: taken inside ours it deadlocked the two threads (the goal
    # never ended and no goal came in after it).
    goal_id = gh.get_goal_id().id
    with lock:
        return goal_id in cancelled


def feedback(gh, x):
    fb = MoveBaseFeedback()
    fb.base_position.header.frame_id = "map"
    fb.base_position.pose.position.x = x
    gh.publish_feedback(fb)


def work(gh):
    mode = mode_of(gh)
    if mode == "succeed":
        for i in range(2):
            feedback(gh, i + 1)
            time.sleep(0.05)
        gh.set_succeeded(MoveBaseResult(), "done")
        say("done", mode, "SUCCEEDED")
    elif mode == "abort":
        time.sleep(0.05)
        gh.set_aborted(MoveBaseResult(), "aborted on request")
        say("done", mode, "ABORTED")
    elif mode in ("hold", "slow"):
        start = time.time()
        i = 0
        while not rospy.is_shutdown():
            if is_cancelled(gh):
                # A slow server: a halt that waited for the cancel to be
                # acknowledged would block the tick this long.
                time.sleep(0.5)
                gh.set_canceled(MoveBaseResult(), "cancelled")
                faulthandler.cancel_dump_traceback_later()
                say("done", mode, "PREEMPTED")
                return
            if mode == "slow" and time.time() - start > 2:
                gh.set_succeeded(MoveBaseResult(), "done")
                say("done", mode, "SUCCEEDED")
                return
            i += 1
            feedback(gh, i)
            time.sleep(0.05)
        say("done", mode, "SHUTDOWN")  # rospy was shut down (by the master?)
    else:
        gh.set_aborted(MoveBaseResult(), "unknown mode " + mode)
        say("done", mode, "ABORTED")


def on_goal(gh):
    mode = mode_of(gh)
    say("goal", mode, "%.6f" % time.time())
    if mode == "reject":
        gh.set_rejected(MoveBaseResult(), "rejected on request")
        say("done", mode, "REJECTED")
        return
    gh.set_accepted()
    threading.Thread(target=work, args=(gh,), daemon=True).start()


def on_cancel(gh):
    say("cancel", mode_of(gh), "%.6f" % time.time())
    # A cancelled goal ends 0.5 s later: if it has not 10 s on, every
    # thread's stack goes to stderr (from faulthandler's own thread, which
    # needs neither the GIL nor a lock), so that a test waiting for "done"
    # shows where the server is stuck.
    faulthandler.dump_traceback_later(10)
    goal_id = gh.get_goal_id().id
    with lock:
        cancelled.add(goal_id)


rospy.init_node("test_action_server", disable_signals=True)
# Say why rospy ends (a master's "new node registered with same name"
# shows here), so that a test that waits for a line sees what happened.
rospy.core.add_preshutdown_hook(lambda reason: say("rospy shut down:", reason))
server = actionlib.ActionServer(NAME, MoveBaseAction, on_goal, on_cancel, auto_start=False)
server.start()
if PLAN:
    import plan_server

    plan_server.serve(PLAN)
say("ready")
rospy.spin()
