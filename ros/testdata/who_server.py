#!/usr/bin/env python3
"""Serves /who (std_srvs/Trigger) with rospy: the answer names the thread
that handled the call. rospy handles each client connection on a thread of
its own, named in order (Thread-N), so the same name on every call means
one (persistent) connection. A call made while /who_fail is true fails."""
import threading

import rospy
from std_srvs.srv import Trigger, TriggerResponse


def handle(_req):
    if rospy.get_param("/who_fail", False):
        raise rospy.ServiceException("asked to fail")
    return TriggerResponse(success=True, message=threading.current_thread().name)


rospy.init_node("who_server")
rospy.Service("/who", Trigger, handle)
print("ready", flush=True)
rospy.spin()
