#!/usr/bin/python3
"""A rospy peer for btrobot's TCPROS interop tests: one node that plays
every role at once, so that a test starts one rospy process per master
instead of one per role (each start costs ~0.3 core-s for rospy's import).

Usage: peer.py

talk:   publishes sensor_msgs/LaserScan on /scan every 50 ms while it has a
        subscriber (frame_id "laser", stamp 5 s 7 ns, ranges [1, 2.5, inf],
        intensities [], angle_min -1.5)
listen: prints "twist X Z" for each geometry_msgs/Twist on /out (rospy's
        own subscriber, reached through the master)
any:    prints "any N TYPE" for each message on /out_any, taken as
        rospy.AnyMsg (md5sum "*": rostopic hz and bw subscribe this way).
        Another topic than listen's: rospy shares one subscription per
        topic in a node, with the type of the first subscriber.
serve:  provides /rospy_set (std_srvs/SetBool): success = data, message
        "rospy got <data>"; fails for data false with "refused"
call:   once /btrobot_set (std_srvs/SetBool) is registered, calls it with
        data true, persistent, twice, printing "reply <success> <message>"
        for each, then with data false, printing "error <what>", then
        "done"
Prints "ready" once set up.
"""
import threading

import rospy
from geometry_msgs.msg import Twist
from sensor_msgs.msg import LaserScan
from std_srvs.srv import SetBool, SetBoolResponse

rospy.init_node("peer", disable_signals=True)

rospy.Subscriber("/out", Twist, lambda m: print("twist %.2f %.2f" % (m.linear.x, m.angular.z), flush=True))


def on_any(m):
    print("any %d %s" % (len(m._buff), m._connection_header["type"]), flush=True)


rospy.Subscriber("/out_any", rospy.AnyMsg, on_any)


def handle(req):
    if not req.data:
        raise rospy.ServiceException("refused")
    return SetBoolResponse(success=req.data, message="rospy got %s" % req.data)


rospy.Service("/rospy_set", SetBool, handle)


def call():
    rospy.wait_for_service("/btrobot_set")
    proxy = rospy.ServiceProxy("/btrobot_set", SetBool, persistent=True)
    for _ in range(2):
        r = proxy(True)
        print("reply %s %s" % (r.success, r.message), flush=True)
    try:
        proxy(False)
    except rospy.ServiceException as e:
        print("error %s" % e, flush=True)
    proxy.close()
    print("done", flush=True)


threading.Thread(target=call, daemon=True).start()

pub = rospy.Publisher("/scan", LaserScan, queue_size=10)
print("ready", flush=True)
rate = rospy.Rate(20)
while not rospy.is_shutdown():
    if pub.get_num_connections() > 0:
        m = LaserScan()
        m.header.frame_id = "laser"
        m.header.stamp = rospy.Time(5, 7)
        m.angle_min = -1.5
        m.ranges = [1.0, 2.5, float("inf")]
        pub.publish(m)
    rate.sleep()
