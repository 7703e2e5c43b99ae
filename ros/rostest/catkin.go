package rostest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BtrobotMsgs builds the repository's catkin package msgs/btrobot_msgs with
// Debian's catkin_make in a temporary workspace, as a robot's software would
// build it, and returns the devel space's Python directory: put it on
// PYTHONPATH and `import btrobot_msgs.msg` gives genpy's classes. The C++
// headers are under the devel space's include/ (Dir(python)/../../../include).
// It needs catkin and the message generators (Require "catkin_make").
//
// With CatkinWorkspaceEnv set (scripts/test sets it), the workspace is that
// folder, shared by the test binaries that ask for it: the first to ask
// builds it, holding a lock on it that the others wait for, and they use
// what it built (catkin_make costs ~13 core-seconds). scripts/test names
// the folder by what the build is made of (msgs/btrobot_msgs' files and
// the versions of Debian's catkin and message generators), under the
// user's cache folder, so that later runs with the same messages and
// tools reuse it as go test reuses its build cache; the package is copied
// into the workspace, which so outlives the checkout it was built from.
func BtrobotMsgs(t testing.TB) string {
	t.Helper()
	Require(t, "catkin_make", "genpy", "actionlib_msgs")
	pkg, err := repoPath("msgs/btrobot_msgs")
	if err != nil {
		t.Fatal(err)
	}
	ws := os.Getenv(CatkinWorkspaceEnv)
	if ws == "" {
		ws = t.TempDir()
	} else {
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		lock, err := os.OpenFile(filepath.Join(ws, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Close() // releases the lock
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatalf("locking the shared catkin workspace %s: %v", ws, err)
		}
	}
	py := filepath.Join(ws, "devel", "lib", "python3", "dist-packages")
	built := filepath.Join(ws, ".built")
	if _, err := os.Stat(built); err == nil {
		t.Logf("btrobot_msgs built by another test in %s", ws)
		return py
	}
	// What a build that did not finish left is built again from scratch.
	for _, dir := range []string{"src", "build", "devel"} {
		if err := os.RemoveAll(filepath.Join(ws, dir)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(filepath.Join(ws, "src", "btrobot_msgs"), os.DirFS(pkg)); err != nil {
		t.Fatalf("copying %s into the catkin workspace: %v", pkg, err)
	}
	// Debian's catkin runs its CMake helpers with the Python CMake finds
	// first; Debian's is the one that has catkin_pkg and genpy.
	cmd := exec.Command("catkin_make", "-C", ws, "-DPYTHON_EXECUTABLE="+PythonPath)
	cmd.Dir = ws
	// No Lisp (nor EusLisp, nor Node.js) classes: nothing reads them, and
	// genlisp alone started a dozen Pythons.
	cmd.Env = append(os.Environ(), "ROS_HOME="+filepath.Join(ws, "ros"), "ROS_LANG_DISABLE=genlisp:geneus:gennodejs")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("catkin_make of btrobot_msgs: %v\n%s", err, out)
	}
	t.Logf("catkin_make built btrobot_msgs in %v", time.Since(start).Round(time.Millisecond))
	if _, err := os.Stat(filepath.Join(py, "btrobot_msgs", "msg", "__init__.py")); err != nil {
		t.Fatalf("catkin_make generated no Python classes: %v", err)
	}
	if err := os.WriteFile(built, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return py
}

// CatkinWorkspaceEnv names the environment variable that gives the
// workspace BtrobotMsgs builds in, shared by the tests of a run.
const CatkinWorkspaceEnv = "BTROBOT_TEST_CATKIN_WS"

// repoPath returns rel under the repository's root: the first folder up
// from the test's working directory that holds go.mod.
func repoPath(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, rel), nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = up
	}
}
