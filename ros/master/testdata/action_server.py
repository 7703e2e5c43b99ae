#!/usr/bin/python3
"""A rospy actionlib server for move_base_msgs/MoveBaseAction on /move_base.

It "drives" for a few feedback steps towards the goal pose, then succeeds.
Prints "ready" once the server is up and "goal X Y" for each goal.
"""
import rospy
import actionlib
from move_base_msgs.msg import MoveBaseAction, MoveBaseFeedback


def main():
    rospy.init_node("move_base")
    server = None

    def execute(goal):
        pose = goal.target_pose.pose
        print("goal %.2f %.2f" % (pose.position.x, pose.position.y), flush=True)
        for step in range(1, 4):
            feedback = MoveBaseFeedback()
            feedback.base_position.header.frame_id = "map"
            feedback.base_position.pose.position.x = pose.position.x * step / 3.0
            feedback.base_position.pose.position.y = pose.position.y * step / 3.0
            feedback.base_position.pose.orientation.w = 1.0
            server.publish_feedback(feedback)
            rospy.sleep(0.1)
        server.set_succeeded()

    server = actionlib.SimpleActionServer("move_base", MoveBaseAction, execute, auto_start=False)
    server.start()
    print("ready", flush=True)
    rospy.spin()


if __name__ == "__main__":
    main()
