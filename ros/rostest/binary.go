package rostest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BinaryEnv names the environment variable through which a test run hands
// the tests a btrobot binary built once (scripts/test builds it before the
// packages start), instead of each package linking its own copy.
const BinaryEnv = "BTROBOT_TEST_BINARY"

// Btrobot returns the path of a btrobot binary for tests that run it as a
// program: the one BinaryEnv names, or else one built from the module's
// cmd/btrobot into the test's temporary directory. The module's root is
// found from the package's directory upwards (go.mod).
func Btrobot(t testing.TB) string {
	t.Helper()
	if path := os.Getenv(BinaryEnv); path != "" {
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			t.Fatalf("%s=%s is not an executable file: %v", BinaryEnv, path, err)
		}
		return path
	}
	root, err := repoPath(".")
	if err != nil {
		t.Fatalf("finding the module's root: %v", err)
	}
	path := filepath.Join(t.TempDir(), "btrobot")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/btrobot")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/btrobot: %v\n%s", err, out)
	}
	return path
}
