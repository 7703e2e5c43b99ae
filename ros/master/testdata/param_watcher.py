#!/usr/bin/python3
"""A rospy node watching /robot/max_speed through rospy's parameter cache.

rospy.get_param_cached subscribes to the parameter once (subscribeParam) and
from then on reads only its cache, which the master keeps current with
paramUpdate pushes. Prints "ready", then "max_speed V" whenever the cached
value changes.
"""
import rospy


def main():
    rospy.init_node("param_watcher")
    print("ready", flush=True)
    last = object()
    while not rospy.is_shutdown():
        value = rospy.get_param_cached("/robot/max_speed", "unset")
        if value != last:
            print("max_speed %s" % (value,), flush=True)
            last = value
        rospy.sleep(0.05)


if __name__ == "__main__":
    try:
        main()
    except rospy.ROSInterruptException:
        pass
