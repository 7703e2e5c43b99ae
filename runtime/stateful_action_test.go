package runtime

import (
	"errors"
	"strings"
	"testing"
)

// jobAction is a StatefulAction that plays statuses and logs its calls:
// "Job>" OnStart, "Job~" OnRunning, "Job!" OnHalted.
type jobAction struct {
	log         *eventLog
	onStart     Status
	onRunning   []Status
	cursor      int
	failRunning bool
}

func (a *jobAction) OnStart(n *Leaf) (Status, error) {
	a.log.add(n.Name() + ">")
	a.cursor = 0
	return a.onStart, nil
}

func (a *jobAction) OnRunning(n *Leaf) (Status, error) {
	a.log.add(n.Name() + "~")
	if a.failRunning {
		return Failure, errors.New("lost the dock's beacon")
	}
	st := a.onRunning[min(a.cursor, len(a.onRunning)-1)]
	a.cursor++
	return st, nil
}

func (a *jobAction) OnHalted(n *Leaf) {
	a.log.add(n.Name() + "!")
}

func statefulRegistry(log *eventLog) *Registry {
	r := pipelineRegistry(log)
	err := r.RegisterStatefulAction("Job", []PortSpec{
		InputPort[Status]("start", "what OnStart returns").WithDefault("RUNNING"),
		InputPort[string]("running", "what OnRunning returns, one per call").WithDefault("SUCCESS"),
		InputPort[bool]("fail", "OnRunning returns an error").WithDefault("false"),
	}, func(c *Config) (StatefulAction, error) {
		a := &jobAction{log: log}
		a.onStart, _ = LiteralAs[Status](c, "start")
		a.failRunning, _ = LiteralAs[bool](c, "fail")
		list, _ := LiteralAs[string](c, "running")
		for _, f := range strings.Split(list, ",") {
			st, err := ParseStatus(strings.TrimSpace(f))
			if err != nil {
				return nil, err
			}
			a.onRunning = append(a.onRunning, st)
		}
		return a, nil
	})
	if err != nil {
		panic(err)
	}
	return r
}

func TestStatefulAction(t *testing.T) {
	job := func(attrs ...string) *NodeSpec { return N("Job", A(attrs...)) }
	runPlayCases(t, []playCase{
		{
			name: "OnStart from IDLE, OnRunning while RUNNING, OnStart again after completing",
			reg:  statefulRegistry, tree: job("running", "RUNNING,SUCCESS"),
			steps: []playStep{
				tickP(Running, "Job>"), tickP(Running, "Job~"), tickP(Success, "Job~"),
				tickP(Running, "Job>"),
			},
		},
		{
			name: "OnStart may finish at once", reg: statefulRegistry, tree: job("start", "FAILURE"),
			steps: []playStep{tickP(Failure, "Job>"), tickP(Failure, "Job>")},
		},
		{
			name: "halt calls OnHalted while RUNNING; the next tick starts again",
			reg:  statefulRegistry, tree: job("running", "RUNNING"),
			steps: []playStep{
				tickP(Running, "Job>"), tickP(Running, "Job~"), haltP("Job!"), tickP(Running, "Job>"),
			},
		},
		{
			name: "a halted tree whose action is not running calls nothing",
			reg:  statefulRegistry, tree: N("Sequence", nil, job("start", "SUCCESS"), S("A", "R")),
			steps: []playStep{tickP(Running, "Job> A"), haltP("A!")},
		},
		{
			name: "ticked again after completing without a reset, it returns that status (BT.CPP)",
			reg:  statefulRegistry, tree: N("Pipeline", nil, job("start", "SUCCESS")),
			steps: []playStep{tickP(Success, "Job>"), tickP(Success, ""), tickP(Success, "")},
		},
		{
			name: "OnStart returning IDLE is an error", reg: statefulRegistry, tree: job("start", "IDLE"),
			steps: []playStep{errP(`MainTree/Job (Job): OnStart returned IDLE; it must return RUNNING, SUCCESS, FAILURE or SKIPPED`)},
		},
		{
			name: "OnRunning returning IDLE is an error", reg: statefulRegistry, tree: job("running", "IDLE"),
			steps: []playStep{tickP(Running, "Job>"), errP(`MainTree/Job (Job): OnRunning returned IDLE`)},
		},
		{
			name: "an error from OnRunning fails the tick, and the halted tree calls OnHalted",
			reg:  statefulRegistry, tree: job("fail", "true"),
			steps: []playStep{
				tickP(Running, "Job>"),
				{err: `MainTree/Job (Job): lost the dock's beacon`, events: "Job~ Job!"},
				tickP(Running, "Job>"),
			},
		},
	})
}
