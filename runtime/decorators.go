package runtime

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// decoratorTypes returns the built-in decorators: BehaviorTree.CPP v4's
// and those the older behavior-tree literature adds.
func decoratorTypes() []NodeType {
	var all []NodeType
	all = append(all, inverterTypes()...)
	all = append(all, forceTypes()...)
	all = append(all, repeatTypes()...)
	all = append(all, retryTypes()...)
	all = append(all, keepRunningTypes()...)
	all = append(all, timeoutTypes()...)
	all = append(all, delayTypes()...)
	all = append(all, runOnceTypes()...)
	all = append(all, preconditionTypes()...)
	all = append(all, updatedDecoratorTypes()...)
	all = append(all, queueLoopTypes()...)
	all = append(all, untilTypes()...)
	all = append(all, cooldownTypes()...)
	all = append(all, limitTypes()...)
	all = append(all, rateControllerTypes()...)
	all = append(all, semaphoreTypes()...)
	return all
}

// errChildIdle is what a decorator reports when its child breaks the tick
// contract; Execute already rejects it, so it only guards against nodes
// ticked outside Execute.
var errChildIdle = errors.New("the child returned IDLE")

// maxMsec is the largest millisecond count a time.Duration holds.
const maxMsec = uint64(math.MaxInt64 / int64(time.Millisecond))

// msecDuration converts a port's count of milliseconds, as BehaviorTree.CPP
// writes durations, into a Duration.
func msecDuration(port string, ms uint) (time.Duration, error) {
	if uint64(ms) > maxMsec {
		return 0, fmt.Errorf("%s is %d ms, more than a time.Duration holds (%d ms)", port, ms, maxMsec)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// checkMsecLiteral rejects, when the tree is built, a millisecond port
// whose literal value is too large to be a duration.
func checkMsecLiteral(c *Config, port string) error {
	if ms, ok := LiteralAs[uint](c, port); ok {
		if _, err := msecDuration(port, ms); err != nil {
			return err
		}
	}
	return nil
}
