#!/usr/bin/python3
"""A rospy node publishing std_msgs/String "hello N" at 10 Hz.

usage: talker.py TOPIC [NODE_NAME]
Prints "ready" once registered, then "published hello N" for each message.
"""
import sys

import rospy
from std_msgs.msg import String


def main():
    topic = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "talker"
    rospy.init_node(name)
    pub = rospy.Publisher(topic, String, queue_size=10)
    print("ready", flush=True)
    rate = rospy.Rate(10)
    n = 0
    while not rospy.is_shutdown():
        pub.publish(String(data="hello %d" % n))
        print("published hello %d" % n, flush=True)
        n += 1
        try:
            rate.sleep()
        except rospy.ROSInterruptException:
            break


if __name__ == "__main__":
    main()
