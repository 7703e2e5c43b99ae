#!/usr/bin/python3
"""Runs command lines of Debian's rosparam, rosnode, rostopic and rosservice
one after another in one process, each by the main function that the tool's
script in /usr/bin calls: the same code, without a Python start and the
tool's imports for each (a third of a second a command).

usage: ros_cli.py JSON
JSON is a list of command lines, such as [["rosparam", "get", "/a"],
["rosnode", "list"]]. Prints one JSON line per command line:
{"argv": [...], "out": stdout, "err": stderr, "code": exit status}, the
status being what the tool would have exited with.
"""
import contextlib
import importlib
import io
import json
import sys
import traceback

# The module of each tool and the main function its script calls.
MAINS = {
    "rosparam": ("rosparam", "yamlmain"),
    "rosnode": ("rosnode", "rosnodemain"),
    "rostopic": ("rostopic", "rostopicmain"),
    "rosservice": ("rosservice", "rosservicemain"),
}


def run(argv):
    module, main = MAINS[argv[0]]
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            getattr(importlib.import_module(module), main)(list(argv))
        except SystemExit as e:
            # As the interpreter exits: None is 0, a message is printed and 1.
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
    return {"argv": argv, "out": out.getvalue(), "err": err.getvalue(), "code": code}


def main():
    for argv in json.loads(sys.argv[1]):
        print(json.dumps(run(argv)), flush=True)


if __name__ == "__main__":
    main()
