package skills

import (
	"fmt"
	"strings"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Log says a line through the program's log sink (skills.Deps.Log; /rosout
// when the program gives none), never by printing, and returns SUCCESS.
//
//	<Log message="reached {target}, battery at {battery_pct}" level="info"/>
//
// Contract: a synchronous action. Each "{key}" inside the message is
// replaced by the value of that blackboard entry, so a line can say what
// the robot is doing; message="{key}" alone logs that entry's value. An
// entry that holds no value reads "<key not set>" (a NavigateTo that was
// halted, say, wrote no error_code), one that does not exist in the
// node's scope "<no entry key>"; braces around anything but a key name
// ("{}", "{x: 1}") are kept as written. The line carries the tree's time and the node's
// path. level is debug, info, warn or error.
type Log struct {
	*runtime.Leaf
}

func logType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "Log", Kind: runtime.ActionKind,
		Summary: "Says a line, with {key} replaced by blackboard values, through the log sink; SUCCESS.",
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("message", "the line; {key} is replaced by the entry's value"),
			runtime.InputPort[Level]("level", "debug, info, warn or error").WithDefault("info"),
		},
		New: func(*runtime.Config) (runtime.Node, error) {
			return &Log{Leaf: runtime.NewAction(func(n *runtime.Leaf) (runtime.Status, error) {
				msg, err := runtime.GetInput[string](n, "message")
				if err != nil {
					return runtime.Failure, err
				}
				level, err := runtime.GetInput[Level](n, "level")
				if err != nil {
					return runtime.Failure, err
				}
				e.log(LogEntry{Time: n.Now(), Node: n.Path(), Level: level, Text: interpolate(n.Blackboard(), msg)})
				return runtime.Success, nil
			})}, nil
		},
	}
}

// log hands a line to the sink, else to /rosout.
func (e *env) log(l LogEntry) {
	switch {
	case e.Log != nil:
		e.Log(l)
	case e.Conn != nil:
		level := map[Level]ros.LogLevel{Debug: ros.LogDebug, Info: ros.LogInfo, Warn: ros.LogWarn, Error: ros.LogError}[l.Level]
		e.Conn.Logf(level, "%s: %s", l.Node, l.Text)
	}
}

// interpolate replaces each {key} of text with the entry's value, or says
// that there is none.
func interpolate(bb *runtime.Blackboard, text string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			break
		}
		key := strings.TrimSpace(text[i+1 : i+j])
		b.WriteString(text[:i])
		switch v, ok := bb.Get(key); {
		case !isKeyName(key):
			b.WriteString(text[i : i+j+1])
		case ok:
			fmt.Fprint(&b, v)
		case bb.Entry(key) != nil:
			b.WriteString("<" + key + " not set>")
		default:
			b.WriteString("<no entry " + key + ">")
		}
		text = text[i+j+1:]
	}
	b.WriteString(text)
	return b.String()
}

// isKeyName reports whether s reads as a blackboard key (letters, digits,
// '_', '.', '@' for the root), not as text that happens to be in braces.
func isKeyName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '.' || r == '@' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
