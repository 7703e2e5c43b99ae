package master

import (
	"fmt"
	"strings"
)

// ROS graph names, resolved the way rosmaster resolves them: a name is
// relative to the namespace of the caller (the node name /ns/node has the
// namespace /ns/), "~name" is private to the caller (/ns/node/name), and a
// global name stays as it is. Empty path segments ("/a//b/") are dropped.

// canonicalName drops empty segments and the trailing slash; "/" stays "/".
func canonicalName(name string) string {
	if name == "" || name == "/" {
		return name
	}
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' })
	joined := strings.Join(parts, "/")
	if name[0] == '/' {
		return "/" + joined
	}
	return joined
}

// namespaceOf returns the namespace of a node or resource name, with a
// trailing slash: "/wg/node1" -> "/wg/", "/node" -> "/", "" -> "/".
func namespaceOf(name string) string {
	if name == "" {
		return "/"
	}
	if strings.HasSuffix(name, "/") {
		name = name[:len(name)-1]
	}
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "/"
	}
	return name[:i+1]
}

// resolveName resolves name against the caller's node name.
func resolveName(name, callerID string) string {
	if name == "" {
		return namespaceOf(callerID)
	}
	name = canonicalName(name)
	switch {
	case name == "/" || name[0] == '/':
		return name
	case name[0] == '~':
		return canonicalName(callerID + "/" + name[1:])
	default:
		return namespaceOf(callerID) + name
	}
}

// joinName joins a name onto a namespace; a global name stays as it is.
func joinName(ns, name string) string {
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, "~") {
		return name
	}
	if ns == "" {
		return name
	}
	if strings.HasSuffix(ns, "/") {
		return ns + name
	}
	return ns + "/" + name
}

// checkGraphName validates a topic, service or node name the way rosmaster
// does before resolving it: non-empty and free of the characters that show a
// URI was passed by mistake.
func checkGraphName(what, name string) error {
	if name == "" {
		return fmt.Errorf("ERROR: parameter [%s] must be a non-empty string", what)
	}
	if strings.ContainsAny(name, ": ") {
		return fmt.Errorf("ERROR: parameter [%s] contains illegal chars", what)
	}
	return nil
}

// checkAPI validates a node's XML-RPC or ROSRPC URI.
func checkAPI(what, uri string) error {
	if uri == "" {
		return fmt.Errorf("ERROR: parameter [%s] is not an XMLRPC URI", what)
	}
	if !strings.HasPrefix(uri, "http://") && !strings.HasPrefix(uri, "rosrpc://") {
		return fmt.Errorf("ERROR: parameter [%s] is not an RPC URI", what)
	}
	return nil
}

// checkTypeName validates a message type name: "*" or "package/Type".
func checkTypeName(what, typ string) error {
	if typ == "*" {
		return nil
	}
	if typ == "" {
		return fmt.Errorf("ERROR: parameter [%s] must be a non-empty string", what)
	}
	if strings.Count(typ, "/") != 1 {
		return fmt.Errorf("ERROR: parameter [%s] is not a valid package resource name", what)
	}
	return nil
}
