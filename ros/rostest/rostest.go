// Package rostest runs real ROS peers in Go tests: the embedded master,
// Debian's rosmaster, the ros* command-line tools and rospy scripts, each on
// free ports, with bounded timeouts, and stopped when the test ends.
//
//	func TestChatter(t *testing.T) {
//		rostest.Require(t, "rostopic", "rospy")
//		for _, m := range rostest.Masters() {
//			t.Run(m.Name, func(t *testing.T) {
//				uri := m.Start(t)
//				talker := rostest.Python(t, uri, "testdata/talker.py", "/chatter")
//				talker.WaitLine(t, "ready", 20*time.Second)
//				out := rostest.Run(t, uri, 10*time.Second, "rostopic", "list")
//				...
//			})
//		}
//	}
//
// A test that needs a tool which is missing fails when CI=true and is
// skipped otherwise, with the name of the Debian package to install.
package rostest

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// tool is something a test may need from a ROS installation.
type tool struct {
	// executable is looked up in PATH; otherwise module is imported by
	// /usr/bin/python3.
	executable string
	module     string
	debian     string
}

// tools lists what tests ask for by name. A name not listed is taken to be a
// Python module shipped as python3-<name with dashes>.
var tools = map[string]tool{
	"python3":        {executable: PythonPath, debian: "python3"},
	"rosmaster":      {executable: "rosmaster", debian: "python3-rosmaster"},
	"rostopic":       {executable: "rostopic", debian: "python3-rostopic"},
	"rosparam":       {executable: "rosparam", debian: "python3-rosparam"},
	"rosnode":        {executable: "rosnode", debian: "python3-rosnode"},
	"rosservice":     {executable: "rosservice", debian: "python3-rosservice"},
	"roslaunch":      {executable: "roslaunch", debian: "python3-roslaunch"},
	"rospy":          {module: "rospy", debian: "python3-rospy"},
	"actionlib":      {module: "actionlib", debian: "python3-actionlib"},
	"std_msgs":       {module: "std_msgs.msg", debian: "python3-std-msgs"},
	"geometry_msgs":  {module: "geometry_msgs.msg", debian: "python3-geometry-msgs"},
	"nav_msgs":       {module: "nav_msgs.msg", debian: "python3-nav-msgs"},
	"sensor_msgs":    {module: "sensor_msgs.msg", debian: "python3-sensor-msgs"},
	"move_base_msgs": {module: "move_base_msgs.msg", debian: "python3-move-base-msgs"},
	"actionlib_msgs": {module: "actionlib_msgs.msg", debian: "python3-actionlib-msgs"},
	"sqlite3":        {executable: "sqlite3", debian: "sqlite3"},
	// catkin_make builds btrobot_msgs (BtrobotMsgs); it needs the
	// generators and the packages it depends on as CMake packages.
	"catkin_make": {executable: "catkin_make", debian: "catkin ros-message-generation python3-gencpp libstd-msgs-dev libactionlib-msgs-dev g++"},
	"genpy":       {module: "genpy", debian: "python3-genpy"},
	// libzmq's Python binding: a Groot2 client (Groot2 links libzmq).
	"zmq": {module: "zmq", debian: "python3-zmq"},
}

// PythonPath is the interpreter that runs rospy scripts: Debian's, which
// is the one that sees Debian's ROS packages.
const PythonPath = "/usr/bin/python3"

// availability caches lookups, which cost a Python start each.
var availability sync.Map // name -> error string ("" when available)

// Require stops the test unless every named tool is available: executables
// ("rostopic", "rosparam", "rosnode", "rosservice", "rosmaster", "python3")
// are looked up in PATH, anything else ("rospy", "actionlib",
// "move_base_msgs", ...) is imported by /usr/bin/python3. When one is
// missing the test fails if the environment variable CI is "true", and is
// skipped otherwise; either way the message names the tool and the Debian
// package that provides it.
func Require(t testing.TB, names ...string) {
	t.Helper()
	var missing []string
	for _, name := range names {
		if problem := lookup(name); problem != "" {
			missing = append(missing, problem)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "missing ROS tools: " + strings.Join(missing, "; ")
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true, so this fails instead of skipping)", msg)
		return
	}
	t.Skip(msg)
}

// modulesOnce imports every Python module of tools in one Python start,
// the first time a test asks for a module: a package's tests ask for
// several, and each start costs a third of a core-second. When they all
// import, each is known to be available; otherwise lookup tries the one
// asked for alone, to say which is missing.
var modulesOnce sync.Once

func importAllModules() {
	var modules []string
	for _, tl := range tools {
		if tl.module != "" {
			modules = append(modules, tl.module)
		}
	}
	slices.Sort(modules)
	cmd := exec.Command(PythonPath, "-c", "import "+strings.Join(modules, ", "))
	cmd.Env = os.Environ()
	if cmd.Run() != nil {
		return
	}
	for name, tl := range tools {
		if tl.module != "" {
			availability.Store(name, "")
		}
	}
}

// lookup returns "" when name is available, else what is missing.
func lookup(name string) string {
	if tl, known := tools[name]; !known || tl.module != "" {
		modulesOnce.Do(importAllModules)
	}
	if v, ok := availability.Load(name); ok {
		return v.(string)
	}
	tl, known := tools[name]
	if !known {
		tl = tool{module: name, debian: "python3-" + strings.ReplaceAll(name, "_", "-")}
	}
	problem := ""
	if tl.executable != "" {
		if _, err := exec.LookPath(tl.executable); err != nil {
			problem = name + " (apt-get install " + tl.debian + ")"
		}
	} else {
		cmd := exec.Command(PythonPath, "-c", "import "+tl.module)
		cmd.Env = os.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			problem = name + " (apt-get install " + tl.debian + "): " + lastLine(string(out), err)
		}
	}
	availability.Store(name, problem)
	return problem
}

func lastLine(out string, err error) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return err.Error()
}
