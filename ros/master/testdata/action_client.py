#!/usr/bin/python3
"""A rospy actionlib client sending one move_base goal to (X, Y).

usage: action_client.py X Y
Prints "feedback X Y" for feedback and "result STATE" (3 is SUCCEEDED) at the
end; exits 1 if the server or the result does not come within 20 s.
"""
import sys

import rospy
import actionlib
from actionlib_msgs.msg import GoalStatus
from move_base_msgs.msg import MoveBaseAction, MoveBaseGoal


def main():
    x, y = float(sys.argv[1]), float(sys.argv[2])
    rospy.init_node("mission")
    client = actionlib.SimpleActionClient("move_base", MoveBaseAction)
    if not client.wait_for_server(rospy.Duration(20)):
        print("no server", flush=True)
        sys.exit(1)
    goal = MoveBaseGoal()
    goal.target_pose.header.frame_id = "map"
    goal.target_pose.pose.position.x = x
    goal.target_pose.pose.position.y = y
    goal.target_pose.pose.orientation.w = 1.0

    def on_feedback(fb):
        p = fb.base_position.pose.position
        print("feedback %.2f %.2f" % (p.x, p.y), flush=True)

    client.send_goal(goal, feedback_cb=on_feedback)
    if not client.wait_for_result(rospy.Duration(20)):
        print("no result", flush=True)
        sys.exit(1)
    state = client.get_state()
    print("result %d" % state, flush=True)
    sys.exit(0 if state == GoalStatus.SUCCEEDED else 1)


if __name__ == "__main__":
    main()
