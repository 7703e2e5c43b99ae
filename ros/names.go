package ros

import (
	"fmt"
	"strings"
)

// ROS graph names (http://wiki.ros.org/Names): a global name starts with '/',
// a private one with '~' (under the node's own name), and any other is
// relative to the node's namespace. Remapping applies to the resolved name.

// CheckName reports whether s is a valid ROS graph resource name: a letter,
// '/' or '~' first, then letters, digits, '_' and '/'.
func CheckName(s string) error {
	if s == "" {
		return fmt.Errorf("empty name")
	}
	for i, r := range s {
		letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		switch {
		case i == 0 && (letter || r == '/' || r == '~'):
		case i > 0 && (letter || r == '_' || r == '/' || (r >= '0' && r <= '9')):
		default:
			return fmt.Errorf("%q is not a valid ROS name: it may hold letters, digits, '_' and '/', and start with a letter, '/' or '~'", s)
		}
	}
	if strings.Contains(s, "//") {
		return fmt.Errorf("%q is not a valid ROS name: it has an empty part (//)", s)
	}
	return nil
}

// CleanNamespace turns "robot1", "/robot1/" or "" into "/robot1" or "/".
func CleanNamespace(ns string) (string, error) {
	ns = strings.TrimSpace(ns)
	if ns == "" || ns == "/" {
		return "/", nil
	}
	if !strings.HasPrefix(ns, "/") {
		ns = "/" + ns
	}
	ns = strings.TrimRight(ns, "/")
	if err := CheckName(ns); err != nil || strings.Contains(ns, "~") {
		return "", fmt.Errorf("namespace %q is not a valid ROS namespace", ns)
	}
	return ns, nil
}

// JoinName joins a namespace and a relative name.
func JoinName(ns, name string) string {
	name = strings.TrimRight(name, "/")
	if ns == "/" {
		return "/" + name
	}
	return ns + "/" + name
}

// resolveName resolves name against the namespace ns and the node's full
// name node, without remapping.
func resolveName(ns, node, name string) string {
	switch {
	case name == "":
		return ns
	case strings.HasPrefix(name, "/"):
		return "/" + strings.Trim(name, "/")
	case strings.HasPrefix(name, "~"):
		return JoinName(node, strings.TrimPrefix(strings.TrimPrefix(name, "~"), "/"))
	default:
		return JoinName(ns, name)
	}
}

// RobotName is the name of the robot a connection speaks for: the last
// element of its namespace, else its node name — robot1 for
// /robot1/btrobot, btrobot for /btrobot. Fleets name their robots by it
// (a robot's spawn place, its claims of places).
func RobotName(c *Conn) string {
	ns := strings.Trim(c.Namespace(), "/")
	if i := strings.LastIndex(ns, "/"); i >= 0 {
		ns = ns[i+1:]
	}
	if ns != "" {
		return ns
	}
	return strings.TrimPrefix(c.Name(), "/")
}

// ValidKey reports whether s may name a blackboard entry that a profile
// binds or a command line sets: a letter or '_' followed by letters,
// digits or '_'.
func ValidKey(s string) bool {
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}
