#!/usr/bin/python3
"""A client of btrobot serve, built on the classes catkin generated for
btrobot_msgs: it drives the server through a fixed story and prints one
JSON line per thing it saw, for the Go test to check.

Usage: serve_client.py NODE   (NODE: the server's node, /robot1/btrobot)
"""
import json
import sys
import time

import actionlib
import rospy
from actionlib_msgs.msg import GoalStatus
from btrobot_msgs.msg import ExecuteMissionAction, ExecuteMissionGoal
from btrobot_msgs.srv import ListMissions
from std_srvs.srv import Trigger

node = sys.argv[1]
rospy.init_node("serve_client", anonymous=True, disable_signals=True)


def say(event, **kw):
    kw["event"] = event
    kw["at"] = time.time()
    print(json.dumps(kw), flush=True)


def state_name(s):
    return GoalStatus.to_string(s) if hasattr(GoalStatus, "to_string") else str(s)


client = actionlib.ActionClient(node + "/execute", ExecuteMissionAction)
if not client.wait_for_server(rospy.Duration(30)):
    say("no_server")
    sys.exit(1)
rospy.wait_for_service(node + "/list", 30)
listing = rospy.ServiceProxy(node + "/list", ListMissions)()
say("list", missions=[m.id for m in listing.missions],
    ports={m.id: [[p.name, p.type] for p in m.ports] for m in listing.missions})

feedback = {}


def on_transition(name):
    def cb(gh):
        pass
    return cb


def on_feedback(name):
    def cb(gh, fb):
        feedback.setdefault(name, []).append((fb.tick, list(fb.running)))
    return cb


def send(name, mission, payload="", preempt=""):
    g = ExecuteMissionGoal(mission=mission, payload=payload, preempt=preempt)
    return client.send_goal(g, on_transition(name), on_feedback(name))


def wait_terminal(name, gh, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if gh.get_comm_state() == actionlib.CommState.DONE:
            r = gh.get_result()
            say("result", goal=name, status=gh.get_goal_status(), text=gh.get_goal_status_text(),
                outcome=r.outcome if r else None, explanation=list(r.explanation) if r else [],
                error_code=r.error_code if r else None)
            return
        time.sleep(0.02)
    say("timeout", goal=name)
    sys.exit(1)


def wait_running(name, leaf, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for tick, running in feedback.get(name, []):
            if any(leaf in r for r in running):
                say("running", goal=name, tick=tick, running=running)
                return tick
        time.sleep(0.02)
    say("timeout", goal=name, feedback=feedback.get(name, [])[-3:])
    sys.exit(1)


# Bad goals: rejected, saying why.
for name, mission, payload in [("unknown", "Patrl", ""), ("bad_payload", "Patrol", "left: many"),
                               ("not_a_map", "Patrol", "- a\n- b")]:
    wait_terminal(name, send(name, mission, payload))

# A goal runs and gives feedback.
a = send("a", "Patrol")
wait_running("a", "NavigateTo")
last_a = feedback["a"][-1][0]
# Same mission, update: the run goes on under the new goal.
b = send("b", "Patrol", payload="left: 2", preempt="update")
wait_terminal("a", a)
first_b = None
deadline = time.time() + 30
while time.time() < deadline and not feedback.get("b"):
    time.sleep(0.02)
say("update", last_a=last_a, first_b=feedback["b"][0][0] if feedback.get("b") else None)
# Another mission replaces it.
c = send("c", "WaitForRobot", preempt="replace")
wait_terminal("b", b)
wait_terminal("c", c)

# Pause holds a navigating robot, resume lets it go on.
d = send("d", "Patrol")
wait_running("d", "NavigateTo")
time.sleep(1.0)  # under way
pause = rospy.ServiceProxy(node + "/pause", Trigger)()
say("paused", success=pause.success, message=pause.message)
# The pause lasts two seconds: the test looks from one second into it
# (the robot brakes from 0.4 m/s at 1 m/s^2 in 0.4 s) to its end, and
# a robot the pause did not hold would cover about 0.4 m in that second,
# eight times the 0.05 m the test allows.
time.sleep(2.0)
resume = rospy.ServiceProxy(node + "/resume", Trigger)()
say("resumed", success=resume.success, message=resume.message)
n = len(feedback["d"])
deadline = time.time() + 30
while time.time() < deadline and len(feedback["d"]) < n + 2:
    time.sleep(0.02)
time.sleep(1.5)  # driving again
say("cancel")
d.cancel()
wait_terminal("d", d)
say("done")
