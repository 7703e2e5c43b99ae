package mission

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/btrobot/btrobot/internal/english"
	"github.com/btrobot/btrobot/runtime"
)

// Outcome is how a run ended.
type Outcome uint8

const (
	// Failed: the root returned FAILURE.
	Failed Outcome = iota
	// Succeeded: the root returned SUCCESS.
	Succeeded
	// Stopped: the run was ended from outside before the root completed
	// (the context was cancelled, RunConf.Stop said so); the tree was
	// halted.
	Stopped
	// Aborted: an error ended the run (a tick's error, a lost connection);
	// the tree was halted.
	Aborted
)

var outcomeNames = [...]string{"failed", "succeeded", "stopped", "aborted"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Report is how a run ended and why. Nothing in it was printed.
type Report struct {
	// RunID identifies the run, and the tree instance it built, in logs,
	// reports and recordings.
	RunID uuid.UUID
	// Robot is the robot the mission ran on (ros.RobotName).
	Robot   string
	Outcome Outcome
	// Status is the root's last status (IDLE when it was halted).
	Status runtime.Status
	Stats  runtime.LoopStats
	// Wall is the run's wall-clock time, from the first tick's wait to the
	// loop's end.
	Wall time.Duration
	// Why says what stopped a Stopped run: "interrupted by SIGINT" (the
	// context's cause), or the reason RunConf.Stop gave.
	Why string
	// Done says a Stopped run was stopped because it had done what it was
	// asked (RunConf.Stop's success): it counts as a success.
	Done bool
	// Err is what aborted an Aborted run.
	Err error
	// Stop says how the robot was stopped at the end.
	Stop string
	// Explanation is the chain of nodes from the root to the leaf whose
	// result decided the outcome, each with its reason
	// (runtime.Tree.Explain); empty when the root did not complete.
	Explanation []runtime.Cause
	// Tree is the tree that ran, for reading its blackboard afterwards.
	Tree *runtime.Tree
}

// OK reports whether the mission did what it was asked: it succeeded, or
// was stopped because it was done.
func (r Report) OK() bool { return r.Outcome == Succeeded || r.Outcome == Stopped && r.Done }

// Summary is how the run ended in one line:
//
//	mission succeeded after 3 ticks (150ms); zero velocity sent on /robot1/cmd_vel
//	interrupted by SIGINT after 812 ticks (40.6s): tree halted; zero velocity sent on /robot1/cmd_vel
//	mission succeeded after 1303 ticks (1m10.2s) and 1 stall (5.02s); zero velocity sent on /robot1/cmd_vel
//
// The controller's stalls (runtime.LoopStats.Stalls: its process did not
// run for a while) are said when there were any.
func (r Report) Summary() string {
	took := fmt.Sprintf("%d %s (%s)", r.Stats.Ticks, english.Plural(int(r.Stats.Ticks), "tick", "ticks"), r.Wall.Round(time.Millisecond))
	switch n := r.Stats.Stalls; {
	case n == 1:
		took += fmt.Sprintf(" and 1 stall (%s)", r.Stats.LongestStall.Round(10*time.Millisecond))
	case n > 1:
		took += fmt.Sprintf(" and %d stalls (longest %s)", n, r.Stats.LongestStall.Round(10*time.Millisecond))
	}
	switch r.Outcome {
	case Succeeded:
		return "mission succeeded after " + took + "; " + r.Stop
	case Failed:
		return "mission failed after " + took + "; " + r.Stop
	case Stopped:
		return fmt.Sprintf("%s after %s: tree halted; %s", r.Why, took, r.Stop)
	}
	return fmt.Sprintf("mission aborted after %s: %v; tree halted; %s", took, r.Err, r.Stop)
}
