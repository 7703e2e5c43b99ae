package mission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// TickConf configures Tick: a tree ticked with no robot attached.
type TickConf struct {
	// File is the tree's BehaviorTree.CPP v4 XML file.
	File string
	// Main is the tree to run [the file's main_tree_to_execute].
	Main string
	// Ticks is how many times to tick (each a tick-exactly-once).
	Ticks int
	// Seed seeds the random nodes.
	Seed uint64
	// Set are root blackboard entries, key=value (see Entry), set before
	// the tree is built, as BehaviorTree.CPP's tools do, so that port
	// declarations meet the values' types.
	Set []string
	// Observers watch the tree's transitions.
	Observers []runtime.Observer
	// Record, when set, is the file the ticks are recorded to (see
	// RunConf.Record).
	Record string
	// Substitute, when set, is a BehaviorTree.CPP substitution rules file
	// (LoadConf.Substitute).
	Substitute string
}

// TickReport is how an offline run ended.
type TickReport struct {
	// Status is the root's status after the last tick.
	Status runtime.Status
	// Err is the error of the tick that failed, which ended the run.
	Err error
	// Explanation is why the root ended as it did (runtime.Tree.Explain).
	Explanation []runtime.Cause
}

// Tick loads conf.File against the palette wired to no robot and ticks it
// conf.Ticks times, writing one JSON line per tick to out
// ({"tick":1,"status":"RUNNING"}, or {"tick":2,"error":"..."} for a tick
// that fails, which ends the run), then the root blackboard
// ({"blackboard":{...}}) — the lines of BehaviorTree.CPP's differential
// traces. A tree that cannot be loaded or built, or a bad entry, is a
// *LoadError.
func Tick(out io.Writer, conf TickConf) (TickReport, error) {
	if err := CheckWatchers(conf.Record, 0); err != nil {
		return TickReport{}, &LoadError{Problems: []error{err}}
	}
	doc, err := trees.Load(conf.File)
	if err != nil {
		le := &LoadError{}
		le.add(err)
		return TickReport{}, le
	}
	bb, err := Entries(conf.Set)
	if err != nil {
		return TickReport{}, &LoadError{Problems: []error{fmt.Errorf("--set %w", err)}}
	}
	if bb == nil {
		bb = runtime.NewBlackboard(nil)
	}
	var subs *runtime.Substitutions
	if conf.Substitute != "" {
		if subs, err = runtime.LoadSubstitutions(conf.Substitute); err != nil {
			le := &LoadError{}
			le.add(err)
			return TickReport{}, le
		}
	}
	tree, err := runtime.Build(Nodes(), doc, runtime.BuildConf{Main: conf.Main, Seed: conf.Seed, Blackboard: bb, Substitutions: subs})
	if err != nil {
		le := &LoadError{}
		le.add(err)
		return TickReport{}, le
	}
	tree.SetExplaining(true) // the report says why the tree failed
	for _, o := range conf.Observers {
		tree.Observe(o)
	}
	w, err := attachWatchers(watchConf{record: conf.Record, tree: tree, doc: doc, palette: Nodes(), seed: conf.Seed})
	if err != nil {
		return TickReport{}, err
	}
	rep, err := tickAll(out, tree, conf.Ticks, w)
	return rep, errors.Join(err, w.close())
}

// tickAll ticks tree n times, writing Tick's lines to out and recording
// each tick's report in w.
func tickAll(out io.Writer, tree *runtime.Tree, n int, w *watchers) (TickReport, error) {
	enc := json.NewEncoder(out)
	var rep TickReport
	clock := tree.Clock()
	for i := 1; i <= n; i++ {
		start := clock.Now()
		st, err := tree.TickExactlyOnce()
		w.onTick(runtime.TickReport{Seq: uint64(i), Start: start, Duration: clock.Now().Sub(start), Status: st})
		if err != nil {
			rep.Err = err
			return rep, enc.Encode(struct {
				Tick  int    `json:"tick"`
				Error string `json:"error"`
			}{i, err.Error()})
		}
		rep.Status = st
		if err := enc.Encode(struct {
			Tick   int    `json:"tick"`
			Status string `json:"status"`
		}{i, st.String()}); err != nil {
			return rep, err
		}
	}
	rep.Explanation = tree.Explain()
	return rep, enc.Encode(struct {
		Blackboard map[string]any `json:"blackboard"`
	}{jsonSafe(tree.Blackboard().Snapshot())})
}

// jsonSafe replaces values JSON cannot hold by text: infinities and NaN as
// BehaviorTree.CPP's tools print them ("inf", "-inf", "nan"), anything else
// (channels, funcs) as Go prints it.
func jsonSafe(m map[string]any) map[string]any {
	for k, v := range m {
		if f, ok := v.(float64); ok {
			switch {
			case math.IsInf(f, 1):
				m[k] = "inf"
			case math.IsInf(f, -1):
				m[k] = "-inf"
			case math.IsNaN(f):
				m[k] = "nan"
			}
			continue
		}
		if _, err := json.Marshal(v); err != nil {
			m[k] = fmt.Sprint(v)
		}
	}
	return m
}
