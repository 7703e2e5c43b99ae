#!/usr/bin/python3
"""A rospy node subscribing to std_msgs/String.

usage: listener.py TOPIC [NODE_NAME]
Prints "ready" once registered, then "heard DATA" for each message.
"""
import sys

import rospy
from std_msgs.msg import String


def main():
    topic = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "listener"
    rospy.init_node(name)
    rospy.Subscriber(topic, String, lambda msg: print("heard %s" % msg.data, flush=True))
    print("ready", flush=True)
    rospy.spin()


if __name__ == "__main__":
    main()
