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
	runNodeCases(t, []nodeCase{
		{
			name: "OnStart from IDLE, OnRunning while RUNNING, OnStart again after completing",
			reg:  statefulRegistry, tree: job("running", "RUNNING,SUCCESS"),
			steps: []step{
				tick(Running, "Job>"), tick(Running, "Job~"), tick(Success, "Job~"),
				tick(Running, "Job>"),
			},
		},
		{
			name: "OnStart may finish at once", reg: statefulRegistry, tree: job("start", "FAILURE"),
			steps: []step{tick(Failure, "Job>"), tick(Failure, "Job>")},
		},
		{
			name: "halt calls OnHalted while RUNNING; the next tick starts again",
			reg:  statefulRegistry, tree: job("running", "RUNNING"),
			steps: []step{
				tick(Running, "Job>"), tick(Running, "Job~"), halted("Job!"), tick(Running, "Job>"),
			},
		},
		{
			name: "a halted tree whose action is not running calls nothing",
			reg:  statefulRegistry, tree: N("Sequence", nil, job("start", "SUCCESS"), S("A", "R")),
			steps: []step{tick(Running, "Job> A"), halted("A!")},
		},
		{
			name: "ticked again after completing without a reset, it returns that status (BT.CPP)",
			reg:  statefulRegistry, tree: N("Pipeline", nil, job("start", "SUCCESS")),
			steps: []step{tick(Success, "Job>"), tick(Success, ""), tick(Success, "")},
		},
		{
			name: "OnStart returning IDLE is an error", reg: statefulRegistry, tree: job("start", "IDLE"),
			steps: []step{fails(`MainTree/Job (Job): OnStart returned IDLE; it must return RUNNING, SUCCESS, FAILURE or SKIPPED`)},
		},
		{
			name: "OnRunning returning IDLE is an error", reg: statefulRegistry, tree: job("running", "IDLE"),
			steps: []step{tick(Running, "Job>"), fails(`MainTree/Job (Job): OnRunning returned IDLE; it must return RUNNING, SUCCESS, FAILURE or SKIPPED`)},
		},
		{
			name: "an error from OnRunning fails the tick, and the halted tree calls OnHalted",
			reg:  statefulRegistry, tree: job("fail", "true"),
			steps: []step{
				tick(Running, "Job>"),
				{err: `MainTree/Job (Job): lost the dock's beacon`, events: "Job~ Job!"},
				tick(Running, "Job>"),
			},
		},
	})
}
