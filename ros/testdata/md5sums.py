#!/usr/bin/python3
"""Prints the md5sum Debian's ROS packages give each type name read on stdin.

A name is package/Type; Type may be a message, a service, or an action's
wrapper message (MoveBaseActionGoal). Unknown names print "missing".
"""
import importlib
import sys

for line in sys.stdin:
    name = line.strip()
    if not name:
        continue
    pkg, typ = name.split("/", 1)
    md5 = "missing"
    for sub in ("msg", "srv"):
        try:
            mod = importlib.import_module(pkg + "." + sub)
        except Exception:
            continue
        cls = getattr(mod, typ, None)
        if cls is not None and hasattr(cls, "_md5sum"):
            md5 = cls._md5sum
            break
    print(name, md5)
