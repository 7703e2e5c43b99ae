package runtime

import (
	"fmt"

	"github.com/btrobot/btrobot/runtime/script"
)

// The pre- and post-condition attributes every node accepts, in the order
// BehaviorTree.CPP evaluates them.
const (
	preFailureIf = iota
	preSuccessIf
	preSkipIf
	preWhile
	preCount
)

const (
	postHalted = iota
	postFailure
	postSuccess
	postAlways
	postCount
)

// PreConditions and PostConditions are the attribute names, indexed as above.
var (
	PreConditions  = [preCount]string{"_failureIf", "_successIf", "_skipIf", "_while"}
	PostConditions = [postCount]string{"_onHalted", "_onFailure", "_onSuccess", "_post"}
)

// conditions holds a node's compiled pre/post-condition scripts; nodes
// without any have none, so the tick path pays one nil check.
type conditions struct {
	pre  [preCount]*script.Program
	post [postCount]*script.Program
}

// checkPre evaluates the pre-conditions as BehaviorTree.CPP does:
// _failureIf, _successIf and _skipIf only when the node is IDLE (they are
// not re-checked while it runs); _while when IDLE (false skips the node) and
// while RUNNING (false halts it and skips it).
func (c *conditions) checkPre(n Node) (Status, bool, error) {
	b := n.base()
	for i, p := range c.pre {
		if p == nil {
			continue
		}
		switch b.status {
		case Idle, Skipped:
			v, err := evalBool(p, b.scriptEnv(), PreConditions[i])
			if err != nil {
				return Failure, false, err
			}
			switch {
			case v && i == preFailureIf:
				if b.Explaining() {
					b.SetReason(PreConditions[i] + ": " + ExplainScript(p, b.scriptEnv(), v))
				}
				return Failure, true, nil
			case v && i == preSuccessIf:
				if b.Explaining() {
					b.SetReason(PreConditions[i] + ": " + ExplainScript(p, b.scriptEnv(), v))
				}
				return Success, true, nil
			case v && i == preSkipIf:
				return Skipped, true, nil
			case !v && i == preWhile:
				return Skipped, true, nil
			}
		case Running:
			if i != preWhile {
				continue
			}
			v, err := evalBool(p, b.scriptEnv(), PreConditions[i])
			if err != nil {
				return Failure, false, err
			}
			if !v {
				HaltNode(n)
				return Skipped, true, nil
			}
		}
	}
	return Idle, false, nil
}

func (c *conditions) checkPost(b *Base, st Status) error {
	run := func(i int) error {
		if p := c.post[i]; p != nil {
			if _, err := p.Eval(b.scriptEnv()); err != nil {
				return fmt.Errorf("%s: %w", PostConditions[i], err)
			}
		}
		return nil
	}
	switch st {
	case Success:
		if err := run(postSuccess); err != nil {
			return err
		}
	case Failure:
		if err := run(postFailure); err != nil {
			return err
		}
	}
	return run(postAlways)
}

func evalBool(p *script.Program, env script.Env, attr string) (bool, error) {
	v, err := p.Eval(env)
	if err != nil {
		return false, fmt.Errorf("%s: %w", attr, err)
	}
	ok, err := script.Truthy(v)
	if err != nil {
		return false, fmt.Errorf("%s: %w", attr, err)
	}
	return ok, nil
}
