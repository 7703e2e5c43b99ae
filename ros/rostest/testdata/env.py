#!/usr/bin/python3
"""Prints the ROS environment it was started with, then "args" and its
arguments, then waits to be killed."""
import os
import sys
import time

for name in ("ROS_MASTER_URI", "ROS_IP", "ROS_HOSTNAME", "ROS_HOME", "ROS_LOG_DIR"):
    print("%s=%s" % (name, os.environ.get(name, "")))
print("args " + " ".join(sys.argv[1:]))
time.sleep(60)
