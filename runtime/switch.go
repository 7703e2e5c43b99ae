package runtime

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Switch ticks the child whose case matches a value: SwitchN has N cases
// (case_1 … case_N) and N+1 children, the last being the default.
//
//	Switch3 variable="{mode}" case_1="DOCK" case_2="PATROL" case_3="3"
//	├── Dock      when mode matches case_1
//	├── Patrol    when mode matches case_2
//	├── Report    when mode matches case_3
//	└── Idle      otherwise (the default child)
//
// Matching follows BehaviorTree.CPP 4.10. The variable and each case are
// read as text, the way BT.CPP turns an entry into a string (an integer or
// bool entry prints as a decimal integer, true being 1; a floating-point one
// with six decimals, as C's %f), then the cases are tried in order, and a
// case matches when:
//   - the two texts are equal; or
//   - both read as 32-bit integers, or as names of enums registered with
//     [Registry.RegisterEnum], and the numbers are equal; or
//   - both read as real numbers (or enum names) that differ by at most
//     float32's machine epsilon (about 1.19e-7).
//
// Numbers are read strictly, as C++'s from_chars reads them: no sign "+",
// no spaces, no hexadecimal. A variable whose blackboard entry is missing
// or holds a value with no text form (a struct, say) matches no case, and so
// does a case whose entry is missing: the default child runs.
//
// Contract (BehaviorTree.CPP 4.10 SwitchN):
//   - the matching child is ticked every tick (the match is re-evaluated on
//     every tick); if another child was running, it is halted first;
//   - the child's RUNNING is returned and remembered; its SUCCESS or
//     FAILURE resets all children and is returned; its SKIPPED is returned
//     as it is (the Switch is skipped, BT.CPP does not fall back to the
//     default child);
//   - a case left out of the tree never matches.
//
// Where btrobot differs from BT.CPP 4.10, deliberately:
//   - BT.CPP declares variable and the cases as string ports, so
//     variable="{c}" makes c a string entry when the tree is built. A node
//     that then writes a number into c through a typed output port throws
//     ("once declared, the type of a port shall not change"), and a tree in
//     which such a port names {c} before the Switch does fails to load:
//     the Switch's declaration locks out the very producers it is meant to
//     branch on. btrobot declares them as ports of any type: {c} is created
//     when the tree is built, as in BT.CPP, and takes its type from its
//     first write. Trees in which scripts write c (the usual case) tick
//     identically.
//   - variable is required: a Switch without one is rejected when the tree
//     is built (BT.CPP ticks the default child).
//   - a SwitchN without exactly N+1 children is rejected when the tree is
//     built (BT.CPP: it throws at its first tick).
type Switch struct {
	Base
	cases   int
	running int // index of the running child, or -1
}

// switchCasePorts are the port names case_1 … case_6.
var switchCasePorts = [...]string{"case_1", "case_2", "case_3", "case_4", "case_5", "case_6"}

func switchTypes() []NodeType {
	var types []NodeType
	for cases := 2; cases <= len(switchCasePorts); cases++ {
		ports := []PortSpec{InputPort[any]("variable", "the value to match, usually a blackboard entry like {mode}")}
		for i := 0; i < cases; i++ {
			ports = append(ports, InputPort[any](switchCasePorts[i], fmt.Sprintf("the value that selects child %d; a case left out never matches", i+1)).AsOptional())
		}
		types = append(types, NodeType{
			ID: fmt.Sprintf("Switch%d", cases), Kind: ControlKind,
			Summary:     fmt.Sprintf("Ticks the child whose case (case_1…case_%d) matches variable, else the last (default) child.", cases),
			Ports:       ports,
			MinChildren: cases + 1, MaxChildren: cases + 1,
			New: func(*Config) (Node, error) {
				return &Switch{cases: cases, running: -1}, nil
			},
		})
	}
	return types
}

// Tick finds the matching case and ticks its child.
func (n *Switch) Tick() (Status, error) {
	match := n.cases // the default child
	if v, ok := n.text("variable"); ok {
		for i := 0; i < n.cases; i++ {
			if c, ok := n.text(switchCasePorts[i]); ok && switchMatches(v, c, n.tree.enums) {
				match = i
				break
			}
		}
	}
	if n.running >= 0 && n.running != match {
		n.HaltChild(n.running)
	}
	st, err := Execute(n.children[match])
	if err != nil {
		return st, err
	}
	switch st {
	case Skipped:
		n.running = -1
	case Running:
		n.running = match
	default:
		n.ResetChildren()
		n.running = -1
	}
	return st, nil
}

// Halt forgets the running child and halts it.
func (n *Switch) Halt() {
	n.running = -1
	n.ResetChildren()
}

// text reads port name as BehaviorTree.CPP's getInput<std::string> would.
func (n *Switch) text(port string) (string, bool) {
	v, err := GetInput[any](n, port)
	if err != nil {
		return "", false
	}
	return switchText(v)
}

// switchText is the text BT.CPP makes of a value it holds: integers (and
// bools, which it stores as integers) in decimal, reals as "%f".
func switchText(v any) (string, bool) {
	if s, ok := v.(string); ok {
		return s, true
	}
	rv := reflect.ValueOf(v)
	switch k := rv.Kind(); {
	case k == reflect.String:
		return rv.String(), true
	case k == reflect.Bool:
		if rv.Bool() {
			return "1", true
		}
		return "0", true
	case isIntKind(k):
		return strconv.FormatInt(rv.Int(), 10), true
	case isUintKind(k):
		return strconv.FormatUint(rv.Uint(), 10), true
	case k == reflect.Float32 || k == reflect.Float64:
		return strconv.FormatFloat(rv.Float(), 'f', 6, 64), true
	}
	return "", false
}

// float32Epsilon is the tolerance BT.CPP's Switch compares reals with.
const float32Epsilon = 1.1920928955078125e-07

// switchMatches compares a variable and a case as BT.CPP 4.10's Switch does.
func switchMatches(a, b string, enums map[string]int) bool {
	if a == b {
		return true
	}
	if x, ok := switchInt(a, enums); ok {
		if y, ok := switchInt(b, enums); ok && x == y {
			return true
		}
	}
	x, okA := switchReal(a, enums)
	y, okB := switchReal(b, enums)
	return okA && okB && math.Abs(x-y) <= float32Epsilon
}

// switchInt reads s as an enum name or, the way from_chars reads an int, as
// a whole 32-bit decimal integer.
func switchInt(s string, enums map[string]int) (int64, bool) {
	if v, ok := enums[s]; ok {
		return int64(v), true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false // not a number: spare strconv's error value
	}
	v, err := strconv.ParseInt(s, 10, 32)
	return v, err == nil
}

// switchReal reads s as an enum name or, the way from_chars reads a double,
// as a whole decimal real number. Infinities and NaN are left out: BT.CPP
// reads them, but they never compare within epsilon of anything.
func switchReal(s string, enums map[string]int) (float64, bool) {
	if v, ok := enums[s]; ok {
		return float64(v), true
	}
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.TrimLeft(digits, "0123456789.eE+-") != "" || !(digits[0] == '.' || digits[0] >= '0' && digits[0] <= '9') {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsInf(v, 0)
}
