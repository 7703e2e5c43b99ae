package skills

import "github.com/btrobot/btrobot/runtime"

// IsDocked succeeds while the robot is on a dock.
//
//	<IsDocked/>
//
// Contract (a condition, on this tick's latched inputs): SUCCESS when the
// robot is docked, FAILURE when it is not or when the input that tells is
// stale or was never received. Docked means the docked flag is true when
// skills.Keys names one (a std_msgs/Bool topic such as the simulator's
// "docked"), else that the battery reports charging or full: a robot
// charges only on a dock. The battery is published slowly (1 Hz on the
// simulator), so without a docked topic IsDocked may answer a battery
// period after the robot docked or left.
type IsDocked struct {
	*runtime.Leaf
}

func isDockedType(e *env) runtime.NodeType {
	return runtime.NodeType{
		ID: "IsDocked", Kind: runtime.ConditionKind,
		Summary: "SUCCESS while the robot is on a dock (docked flag, else a charging battery).",
		New: func(*runtime.Config) (runtime.Node, error) {
			return &IsDocked{Leaf: runtime.NewCondition(func(n *runtime.Leaf) (bool, error) {
				docked, err := e.io(n).docked()
				if err != nil {
					_, err = failOn(n, err)
					return false, err
				}
				if !docked {
					n.SetReason("not on a dock")
				}
				return docked, nil
			})}, nil
		},
	}
}
