#!/usr/bin/python3
"""A rospy node providing the roscpp/Empty service /reset_odometry.

Prints "ready" once the service is registered and "called" on each call.
"""
import rospy
from roscpp.srv import Empty, EmptyResponse


def handle(_req):
    print("called", flush=True)
    return EmptyResponse()


def main():
    rospy.init_node("odometry")
    rospy.Service("/reset_odometry", Empty, handle)
    print("ready", flush=True)
    rospy.spin()


if __name__ == "__main__":
    main()
