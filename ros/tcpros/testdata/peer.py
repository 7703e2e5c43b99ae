#!/usr/bin/python3
"""A rospy peer for btrobot's TCPROS interop tests.

Usage: peer.py talk|listen|serve|call ADDR

talk:   publishes sensor_msgs/LaserScan on /scan every 50 ms (frame_id
        "laser", stamp 5 s 7 ns, ranges [1, 2.5, inf], intensities [], angle_min -1.5)
listen: prints "twist X Z" for each geometry_msgs/Twist on /out (rospy's
        own subscriber, reached through the master)
any:    prints "any N TYPE" for each message on /out, taken as rospy.AnyMsg
        (md5sum "*": rostopic hz and bw subscribe this way)
serve:  provides /rospy_set (std_srvs/SetBool): success = data, message
        "rospy got <data>"; fails for data false with "refused"
call:   calls /btrobot_set (std_srvs/SetBool) with data true, persistent,
        twice, printing "reply <success> <message>" for each
Prints "ready" once set up.
"""
import sys

import rospy
from geometry_msgs.msg import Twist
from sensor_msgs.msg import LaserScan
from std_srvs.srv import SetBool, SetBoolResponse

role = sys.argv[1]
rospy.init_node("peer_" + role, disable_signals=True)

if role == "talk":
    pub = rospy.Publisher("/scan", LaserScan, queue_size=10)
    print("ready", flush=True)
    rate = rospy.Rate(20)
    while not rospy.is_shutdown():
        m = LaserScan()
        m.header.frame_id = "laser"
        m.header.stamp = rospy.Time(5, 7)
        m.angle_min = -1.5
        m.ranges = [1.0, 2.5, float("inf")]
        pub.publish(m)
        rate.sleep()
elif role == "listen":
    rospy.Subscriber("/out", Twist, lambda m: print("twist %.2f %.2f" % (m.linear.x, m.angular.z), flush=True))
    print("ready", flush=True)
    rospy.spin()
elif role == "any":
    def on_any(m):
        print("any %d %s" % (len(m._buff), m._connection_header["type"]), flush=True)
    rospy.Subscriber("/out", rospy.AnyMsg, on_any)
    print("ready", flush=True)
    rospy.spin()
elif role == "serve":
    def handle(req):
        if not req.data:
            raise rospy.ServiceException("refused")
        return SetBoolResponse(success=req.data, message="rospy got %s" % req.data)
    rospy.Service("/rospy_set", SetBool, handle)
    print("ready", flush=True)
    rospy.spin()
elif role == "call":
    rospy.wait_for_service("/btrobot_set", timeout=20)
    call = rospy.ServiceProxy("/btrobot_set", SetBool, persistent=True)
    for _ in range(2):
        r = call(True)
        print("reply %s %s" % (r.success, r.message), flush=True)
    try:
        call(False)
    except rospy.ServiceException as e:
        print("error %s" % e, flush=True)
    print("done", flush=True)
    rospy.spin()
