package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/btrobot/btrobot/runtime/script"
)

// Script runs a script that reads and writes the blackboard and returns
// SUCCESS; ScriptCondition runs a script and returns SUCCESS when its value
// is true, FAILURE when it is false.
//
//	<Script code="visits += 1; last := 'dock'"/>
//	<ScriptCondition code="battery > 0.2 &amp;&amp; !docked"/>
//
// Contract (BehaviorTree.CPP v4 Script and ScriptCondition):
//   - the script in "code" is parsed when the tree is built; a script that
//     does not parse (or is empty) is a build error naming the node;
//   - every tick evaluates it in the node's blackboard scope: Script
//     returns SUCCESS whatever the value, ScriptCondition the truth of the
//     value of its last statement;
//   - an error while evaluating (an unknown variable, a type clash) makes
//     the tick return that error, and the tree is halted. Assignments made
//     before the error stay made, as in BT.CPP.
//
// When "code" names a blackboard entry ("{key}") instead of holding the
// script, the script is read from the entry and parsed again only when its
// text changes.
//
// As in BT.CPP, a Script whose code is exactly empty (code="") does nothing
// and succeeds; code made only of blanks does not parse.
type Script struct {
	Base
	code      *scriptPort
	condition bool
}

func scriptTypes() []NodeType {
	mk := func(condition bool) func(c *Config) (Node, error) {
		return func(c *Config) (Node, error) {
			code, err := newScriptPort(c, "code", !condition)
			if err != nil {
				return nil, err
			}
			return &Script{code: code, condition: condition}, nil
		}
	}
	return []NodeType{
		{
			ID: "Script", Kind: ActionKind,
			Summary: "Runs a script on the blackboard; returns SUCCESS.",
			Ports:   []PortSpec{InputPort[string]("code", "Piece of code that can be parsed").AsScript()},
			New:     mk(false),
		},
		{
			ID: "ScriptCondition", Kind: ConditionKind,
			Summary: "Runs a script; SUCCESS when its value is true, FAILURE when false.",
			Ports:   []PortSpec{InputPort[string]("code", "Piece of code that can be parsed. Must return false or true").AsScript()},
			New:     mk(true),
		},
	}
}

// Tick evaluates the script.
func (n *Script) Tick() (Status, error) {
	if !n.condition {
		if _, err := n.code.eval(n); err != nil {
			return Failure, err
		}
		return Success, nil
	}
	ok, err := n.code.evalBool(n)
	if err != nil {
		return Failure, err
	}
	if n.Explaining() {
		n.SetReason(ExplainScript(n.code.prog, n.scriptEnv(), ok))
	}
	if ok {
		return Success, nil
	}
	return Failure, nil
}

// scriptPort is a script given in a port (Script's code, Precondition's
// if). A literal script is parsed once, when the tree is built, and a parse
// error is a build error. A port that names a blackboard entry holding the
// script is parsed when the script text changes, never on every tick.
type scriptPort struct {
	name       string
	allowEmpty bool // an empty script is a no-op (BT.CPP's Script)
	prog       *script.Program
	src        string
}

// newScriptPort parses port name's literal script, if the tree gives one.
func newScriptPort(c *Config, name string, allowEmpty bool) (*scriptPort, error) {
	sp := &scriptPort{name: name, allowEmpty: allowEmpty}
	if src, ok := LiteralAs[string](c, name); ok && !(allowEmpty && src == "") {
		prog, err := script.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("port %q: script does not parse: %v", name, err)
		}
		sp.prog, sp.src = prog, src
	}
	return sp, nil
}

// program returns the compiled script for this tick.
func (sp *scriptPort) program(n Node) (*script.Program, error) {
	if _, isKey := PortKey(n, sp.name); !isKey {
		return sp.prog, nil
	}
	src, err := GetInput[string](n, sp.name)
	if err != nil {
		return nil, err
	}
	if src == "" && sp.allowEmpty {
		return nil, nil
	}
	if sp.prog == nil || src != sp.src {
		prog, err := script.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("port %q: script does not parse: %v", sp.name, err)
		}
		sp.prog, sp.src = prog, src
	}
	return sp.prog, nil
}

// eval runs the script in n's blackboard scope.
func (sp *scriptPort) eval(n Node) (script.Value, error) {
	prog, err := sp.program(n)
	if err != nil || prog == nil {
		return nil, err
	}
	v, err := prog.Eval(ScriptEnv(n))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sp.name, err)
	}
	return v, nil
}

// evalBool runs the script and reads its result as a condition.
func (sp *scriptPort) evalBool(n Node) (bool, error) {
	v, err := sp.eval(n)
	if err != nil {
		return false, err
	}
	ok, err := script.Truthy(v)
	if err != nil {
		return false, fmt.Errorf("%s: %w", sp.name, err)
	}
	return ok, nil
}

// ExplainScript says what a condition script found, as a reason: its
// source, its truth, and the values of the names it read, as written and
// as they are after it ran (a whole message or other struct is left out:
// the script names the fields it read).
//
//	battery_pct > 0.15 is false (battery_pct = 0.12)
//	msg.percentage > threshold is false (msg.percentage = 0.12, threshold = 0.15)
func ExplainScript(prog *script.Program, env script.Env, v bool) string {
	if prog == nil {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s is %v", prog, v)
	listed := 0
	for _, nv := range prog.ReadValues(env) {
		if nv.Err == nil && nv.Value != nil && isStruct(nv.Value) {
			continue
		}
		if listed == 0 {
			sb.WriteString(" (")
		} else {
			sb.WriteString(", ")
		}
		listed++
		switch s, isText := nv.Value.(string); {
		case errors.Is(nv.Err, script.ErrUnknownVariable):
			fmt.Fprintf(&sb, "%s does not exist", nv.Name)
		case nv.Err != nil:
			fmt.Fprintf(&sb, "%s: %v", nv.Name, nv.Err)
		case nv.Value == nil:
			fmt.Fprintf(&sb, "%s is unset", nv.Name)
		case isText:
			fmt.Fprintf(&sb, "%s = %q", nv.Name, s)
		case isReal(nv.Value):
			fmt.Fprintf(&sb, "%s = %.6g", nv.Name, nv.Value) // a float32 field reads 0.12, not 0.11999999731779099
		default:
			fmt.Fprintf(&sb, "%s = %v", nv.Name, nv.Value)
		}
	}
	if listed > 0 {
		sb.WriteByte(')')
	}
	return sb.String()
}

func isReal(v any) bool {
	switch v.(type) {
	case float64, float32:
		return true
	}
	return false
}

func isStruct(v any) bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}
