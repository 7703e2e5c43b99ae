#!/usr/bin/python3
"""A robot's ROS face for bridge tests.

Usage: robot.py

Publishes sensor_msgs/BatteryState on battery_state every 100 ms, the
percentage going 0.1, 0.2, ... 0.9 and round again, printing "battery P" for
each; prints every geometry_msgs/Twist received on cmd_vel as
"cmd_vel LINEAR_X ANGULAR_Z". Prints "ready" once both are set up.
"""
import rospy
from geometry_msgs.msg import Twist
from sensor_msgs.msg import BatteryState


def on_cmd(msg):
    print("cmd_vel %.1f %.1f" % (msg.linear.x, msg.angular.z), flush=True)


rospy.init_node("test_robot", disable_signals=True)
pub = rospy.Publisher("battery_state", BatteryState, queue_size=10)
rospy.Subscriber("cmd_vel", Twist, on_cmd)
print("ready", flush=True)
rate = rospy.Rate(10)
i = 0
while not rospy.is_shutdown():
    p = (i % 9 + 1) / 10.0
    pub.publish(BatteryState(percentage=p))
    print("battery %.1f" % p, flush=True)
    i += 1
    rate.sleep()
