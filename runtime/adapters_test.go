package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adapterRegistry is the test palette plus leaves written with the
// adapters, logging to log.
func adapterRegistry(log *eventLog) *Registry {
	r := testRegistry(log)
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(r.RegisterCondition("InRange", []PortSpec{
		InputPort[float64]("value", "what to check"),
		InputPort[float64]("min", "lowest accepted").WithDefault("0"),
		InputPort[float64]("max", "highest accepted"),
	}, func(n *Leaf) (bool, error) {
		log.add(n.Name())
		v, err := GetInput[float64](n, "value")
		if err != nil {
			return false, err
		}
		lo, err := GetInput[float64](n, "min")
		if err != nil {
			return false, err
		}
		hi, err := GetInput[float64](n, "max")
		return lo <= v && v <= hi, err
	}))
	must(r.RegisterAction("Count", []PortSpec{
		InputPort[int]("from", "the start"),
		OutputPort[int]("next", "from + 1"),
		InputPort[Status]("result", "what to return").WithDefault("SUCCESS"),
	}, func(n *Leaf) (Status, error) {
		log.add(n.Name())
		from, err := GetInput[int](n, "from")
		if err != nil {
			return Failure, err
		}
		if err := SetOutput(n, "next", from+1); err != nil {
			return Failure, err
		}
		return GetInput[Status](n, "result")
	}))
	must(r.RegisterAction("Fails", nil, func(n *Leaf) (Status, error) {
		log.add(n.Name())
		return Failure, errors.New("motor driver not responding")
	}))
	return r
}

func TestConditionFunc(t *testing.T) {
	in := func(attrs ...string) *NodeSpec { return N("InRange", A(attrs...)) }
	runNodeCases(t, []nodeCase{
		{
			name: "true is SUCCESS, false is FAILURE, ports are read per tick",
			reg:  adapterRegistry, tree: in("value", "{v}", "max", "1"),
			bb: map[string]any{"v": 0.5},
			steps: []step{
				tick(Success, "InRange"),
				tick(Failure, "InRange").writing("v", 1.5),
				tick(Success, "InRange").writing("v", 0.0),
			},
		},
		{
			name: "an error is the tick's error, with the node's path",
			reg:  adapterRegistry, tree: in("value", "{v}", "max", "1"),
			steps: []step{fails(`MainTree/InRange (InRange): input port "value": blackboard entry "v" is not set`)},
		},
	})
}

func TestActionFunc(t *testing.T) {
	count := func(attrs ...string) *NodeSpec { return N("Count", A(attrs...)) }
	runNodeCases(t, []nodeCase{
		{
			name: "the function's status, with outputs written",
			reg:  adapterRegistry, tree: count("from", "{n}", "next", "{n}"),
			bb:     map[string]any{"n": 1},
			steps:  []step{tick(Success, "Count"), tick(Success, "Count")},
			wantBB: map[string]any{"n": 3},
		},
		{
			name: "FAILURE and SKIPPED are fine", reg: adapterRegistry,
			tree:  N("Sequence", nil, count("from", "1", "result", "SKIPPED"), count("name", "Second", "from", "1", "result", "FAILURE")),
			steps: []step{tick(Failure, "Count Second")},
		},
		{
			name: "a skipped action stays IDLE", reg: adapterRegistry,
			tree:  count("from", "1", "result", "SKIPPED"),
			steps: []step{tick(Skipped, "Count")},
			check: func(t *testing.T, tree *Tree) {
				st := NodeOf(tree.Root()).Status()
				assert.Equal(t, Idle, st, "status %v, want IDLE", st)
			},
		},
		{
			name: "RUNNING is an error: a synchronous action finishes in its tick",
			reg:  adapterRegistry, tree: count("from", "1", "result", "RUNNING"),
			steps: []step{fails(`MainTree/Count (Count): a synchronous action (ActionFunc) returned RUNNING; work that spans ticks needs a StatefulAction or an AsyncAction`)},
		},
		{
			name: "an error is the tick's error and halts the tree", reg: adapterRegistry,
			tree:  N("Sequence", nil, S("A", "R,S"), N("Fails", nil)),
			steps: []step{tick(Running, "A"), fails(`MainTree/Sequence/Fails (Fails): motor driver not responding`)},
		},
	})

	t.Run("observers see IDLE → RUNNING → SUCCESS, as BT.CPP's SimpleActionNode", func(t *testing.T) {
		tree, _ := buildWith(t, adapterRegistry(&eventLog{}), count("from", "1"))
		var seen []string
		tree.Observe(ObserverFunc(func(tr Transition) { seen = append(seen, tr.From.String()+">"+tr.To.String()) }))
		_, err := tree.TickExactlyOnce()
		require.NoError(t, err)
		got := strings.Join(seen, " ")
		assert.Equal(t, "IDLE>RUNNING RUNNING>SUCCESS SUCCESS>IDLE", got, "transitions %q", got)
	})
}

func TestRegisterFuncs(t *testing.T) {
	r := NewRegistry()
	err := r.RegisterCondition("IsDocked", nil, func(*Leaf) (bool, error) { return true, nil })
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"a second type with the same ID", r.RegisterAction("IsDocked", nil, func(*Leaf) (Status, error) { return Success, nil }),
			"register IsDocked: a node type with this ID is already registered"},
		{"a built-in name", r.RegisterAsyncAction("Sequence", nil, func(*Leaf) (AsyncWork, error) { return nil, nil }),
			"register Sequence: a node type with this ID is already registered"},
		{"an invalid ID", r.RegisterStatefulAction("9lives", nil, func(*Config) (StatefulAction, error) { return nil, nil }),
			`register "9lives": a node ID is a letter followed by letters, digits or '_'`},
		{"a reserved port name", r.RegisterCondition("Near", []PortSpec{InputPort[float64]("name", "")}, func(*Leaf) (bool, error) { return true, nil }),
			`register Near: invalid port name "name"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.EqualError(t, tc.err, tc.want, "error %v, want %q", tc.err, tc.want)
		})
	}
	for id, kind := range map[string]Kind{"IsDocked": ConditionKind} {
		nt, ok := r.Lookup(id)
		if assert.True(t, ok, "%s registered as %+v", id, nt) {
			assert.Equal(t, kind, nt.Kind, "%s registered as %+v", id, nt)
			assert.Equal(t, "condition", nt.Category, "%s registered as %+v", id, nt)
		}
	}
	err = r.RegisterCondition("NoFunc", nil, nil)
	require.NoError(t, err)
	doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: N("NoFunc", nil)}}}
	_, err = Build(r, doc, BuildConf{})
	assert.ErrorContains(t, err, "MainTree/NoFunc: condition NoFunc has no function", "build error %v", err)
}
