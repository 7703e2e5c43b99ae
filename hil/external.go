package hil

import (
	"context"
	"errors"
)

// RunExternal runs a scenario against the simulator or robot on the ROS
// master RunConf.Master.
func RunExternal(ctx context.Context, c RunConf) (Result, error) {
	return Result{Scenario: c.Scenario}, errors.New("--master: not yet")
}
