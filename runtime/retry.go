package runtime

import "slices"

// RetryUntilSuccessful ticks its child again each time it fails, up to
// num_attempts attempts, and succeeds as soon as the child succeeds.
//
//	<RetryUntilSuccessful num_attempts="3">
//	  <Dock/>          FAILURE, FAILURE, SUCCESS → SUCCESS
//	</RetryUntilSuccessful>
//
// Contract (BehaviorTree.CPP v4 RetryUntilSuccessful):
//   - num_attempts is read on every tick, and again after every failure
//     (so the child may change it while retrying); -1 retries forever, 0
//     fails at once without ticking the child;
//   - a child SUCCESS resets the attempt count and the child and returns
//     SUCCESS;
//   - a child FAILURE counts one attempt and resets the child. When the
//     child had been started in this very tick (it was IDLE) and attempts
//     remain, the node returns RUNNING and wakes the tree, so each
//     synchronous attempt takes one tick. When the child had been RUNNING,
//     the next attempt starts in the same tick;
//   - when the attempts are used up it returns FAILURE and the count
//     restarts;
//   - RUNNING returns RUNNING; SKIPPED resets the child and returns SKIPPED;
//   - halting resets the count and halts the child.
//
// A num_attempts below -1 is rejected (BT.CPP fails at once).
type RetryUntilSuccessful struct{ loopOn }

func retryTypes() []NodeType {
	return []NodeType{{
		ID: "RetryUntilSuccessful", Kind: DecoratorKind,
		Summary: "Ticks its child again each time it fails, up to num_attempts; succeeds when the child succeeds.",
		Ports: []PortSpec{
			InputPort[int]("num_attempts", "Execute again a failing child up to N times. Use -1 to create an infinite loop."),
		},
		New: func(c *Config) (Node, error) {
			if v, ok := LiteralAs[int](c, "num_attempts"); ok {
				if err := checkLoopCount("num_attempts", v); err != nil {
					return nil, err
				}
			}
			return &RetryUntilSuccessful{}, nil
		},
	}}
}

// Tick runs attempts of the child until it is RUNNING, succeeds, is
// skipped, yields after a synchronous failure, or the attempts run out.
func (n *RetryUntilSuccessful) Tick() (Status, error) {
	return n.tick(n, Failure, "num_attempts", true)
}

// failedAlternatives: the attempts before the last one (the latest 7 of
// them), each with its own chain, when the tree was explaining while they
// ran (without it, only the last attempt is known: the child's own
// record). The node's reason counts them all.
func (n *RetryUntilSuccessful) failedAlternatives(Node) [][]Cause {
	if len(n.attempts) < 2 {
		return nil
	}
	return slices.Clone(n.attempts[:len(n.attempts)-1])
}
