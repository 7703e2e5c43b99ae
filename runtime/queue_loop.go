package runtime

import (
	"fmt"
	"reflect"
	"strings"
)

// QueueLoop is LoopInt, LoopDouble, LoopString and LoopBool: it takes the
// values of a queue one at a time, writes each to its "value" port and runs
// its child once per value.
//
//	<LoopString queue="kitchen;lab;dock" value="{room}">
//	  <NavigateTo goal="{room}"/>
//	</LoopString>
//
// Contract (BehaviorTree.CPP v4 LoopInt, LoopDouble, LoopString, LoopBool):
//   - the queue is a literal "a;b;c" (parsed when the tree is built, as
//     BT.CPP splits it: "" is empty, a trailing ';' adds nothing), or a
//     blackboard entry holding such text or a slice of the loop's type
//     ([]int, []float64, []string, []bool);
//   - when the node starts (from IDLE) it takes a fresh copy of the queue;
//     a blackboard queue is read then, and never consumed in place;
//   - while the child is not RUNNING, each tick pops the next value, writes
//     it to "value", makes the node RUNNING and ticks the child; a RUNNING
//     child is resumed without popping;
//   - a child FAILURE resets the child and returns FAILURE; any other child
//     status returns RUNNING (a completed child is reset first), so the
//     values are taken one per tick;
//   - a tick that finds the queue empty, with no child running, returns
//     if_empty (SUCCESS by default; FAILURE or SKIPPED may be asked for,
//     IDLE and RUNNING are rejected) without ticking the child;
//   - a blackboard queue entry that exists but was never written is an
//     error, as in BT.CPP; one that does not exist is an empty queue;
//   - halting halts the child; the next tick starts afresh.
//
// BT.CPP can also share a std::deque through the blackboard and pop it in
// place; a Go slice on the blackboard is copied instead.
type QueueLoop struct {
	Base
	elem         reflect.Type
	static       []any // the literal queue, nil when the port names an entry
	queue        []any
	childRunning bool
}

func queueLoopTypes() []NodeType {
	mk := func(id string, elem reflect.Type, example string) NodeType {
		return NodeType{
			ID: id, Kind: DecoratorKind,
			Summary: fmt.Sprintf("Runs its child once per value of a queue of %s (%q), writing each value to \"value\".", TypeName(elem), example),
			Ports: []PortSpec{
				{Name: "queue", Dir: InOut, Type: AnyType, Description: fmt.Sprintf("The values, as text like %q or a []%s", example, TypeName(elem))},
				InputPort[Status]("if_empty", "Status to return if queue is empty: SUCCESS, FAILURE, SKIPPED").WithDefault("SUCCESS"),
				{Name: "value", Dir: Output, Type: elem, Description: "The value of this run"},
			},
			New: func(c *Config) (Node, error) {
				n := &QueueLoop{elem: elem}
				if raw, ok := LiteralAs[string](c, "queue"); ok {
					q, err := parseQueue(raw, elem)
					if err != nil {
						return nil, fmt.Errorf("port \"queue\": %v", err)
					}
					n.static = q
				}
				if st, ok := LiteralAs[Status](c, "if_empty"); ok && (st == Idle || st == Running) {
					return nil, fmt.Errorf("port \"if_empty\" is %v; want SUCCESS, FAILURE or SKIPPED", st)
				}
				return n, nil
			},
		}
	}
	return []NodeType{
		mk("LoopInt", reflect.TypeFor[int](), "1;2;3"),
		mk("LoopDouble", reflect.TypeFor[float64](), "0.5;1.5"),
		mk("LoopString", reflect.TypeFor[string](), "kitchen;dock"),
		mk("LoopBool", reflect.TypeFor[bool](), "true;false"),
	}
}

// parseQueue splits text as BT.CPP's splitString does and parses each part.
func parseQueue(text string, elem reflect.Type) ([]any, error) {
	q := []any{}
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], ';')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		v, err := ParseLiteral(text[pos:end], elem)
		if err != nil {
			return nil, fmt.Errorf("element %d: %v", len(q)+1, err)
		}
		q = append(q, v)
		pos = end + 1
	}
	return q, nil
}

// load takes a fresh copy of the queue, when the node starts.
func (n *QueueLoop) load() error {
	if n.static != nil {
		n.queue = append(n.queue[:0], n.static...)
		return nil
	}
	n.queue = n.queue[:0]
	key, _ := PortKey(n, "queue")
	e := n.bb.Entry(key)
	if e == nil {
		return nil
	}
	v, _, _ := e.Load()
	switch {
	case v == nil:
		return fmt.Errorf("port \"queue\": blackboard entry %q was never written", key)
	case reflect.TypeOf(v) == reflect.SliceOf(n.elem):
		rv := reflect.ValueOf(v)
		for i := 0; i < rv.Len(); i++ {
			n.queue = append(n.queue, rv.Index(i).Interface())
		}
		return nil
	}
	text, ok := v.(string)
	if !ok {
		return fmt.Errorf("port \"queue\": blackboard entry %q holds %s; want text like \"1;2\" or a []%s", key, TypeName(reflect.TypeOf(v)), TypeName(n.elem))
	}
	q, err := parseQueue(text, n.elem)
	if err != nil {
		return fmt.Errorf("port \"queue\": blackboard entry %q: %v", key, err)
	}
	n.queue = append(n.queue, q...)
	return nil
}

// Tick pops the next value and runs the child with it.
func (n *QueueLoop) Tick() (Status, error) {
	if n.status == Idle {
		n.childRunning = false
		if err := n.load(); err != nil {
			return Failure, err
		}
	}
	if !n.childRunning {
		if len(n.queue) == 0 {
			n.SetReason("the queue is empty")
			return GetInput[Status](n, "if_empty")
		}
		v := n.queue[0]
		n.queue = n.queue[1:]
		if err := SetOutput(n, "value", v); err != nil {
			return Failure, err
		}
	}
	n.setStatus(Running)
	st, err := Execute(n.children[0])
	if err != nil {
		return st, err
	}
	n.childRunning = st == Running
	if st.Completed() {
		n.HaltChild(0)
	}
	if st == Failure {
		return Failure, nil
	}
	return Running, nil
}

// Halt halts the child; the next tick starts with a fresh queue.
func (n *QueueLoop) Halt() {
	n.childRunning = false
	n.ResetChildren()
}
