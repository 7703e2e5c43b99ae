package executor

import (
	"context"

	"github.com/btrobot/btrobot/ros"
)

// DialExecute returns an action client of a mission server's ExecuteMission
// action (server: its name, "/btrobot/execute" for a server on node
// /btrobot), connected to the server: goals sent on it leave at once.
// It waits until ctx ends for the server to come.
func DialExecute(ctx context.Context, conn *ros.Conn, server string) (*ros.ActionClient, error) {
	client, err := ros.NewActionClient(ros.ActionClientConf{Conn: conn, Name: server, Action: &ros.ExecuteMissionAction{}})
	if err != nil {
		return nil, err
	}
	if err := client.WaitForServer(ctx, nil, 0); err != nil {
		return nil, err
	}
	return client, nil
}
