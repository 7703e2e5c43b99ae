package mission

import (
	"context"
	"fmt"
	"io"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/master"
)

// JoinMaster returns the master URI a command uses: flagURI (its
// --master), else envURI (from ROS_MASTER_URI and the ROS arguments), else
// ros.DefaultMasterURI. With flagURI "auto", a master that answers at that
// URI is used, else btrobot's own is started in its place: who says so on
// log, where the master's own lines go too (a shutdown call, a refused
// request). The returned function stops a master JoinMaster started, and
// does nothing otherwise.
func JoinMaster(ctx context.Context, log io.Writer, who, flagURI, envURI string) (string, func(), error) {
	uri := envURI
	if uri == "" {
		uri = ros.DefaultMasterURI
	}
	nothing := func() {}
	switch flagURI {
	case "":
		return uri, nothing, nil
	case "auto":
	default:
		return flagURI, nothing, nil
	}
	if master.Probe(ctx, uri) == nil {
		return uri, nothing, nil
	}
	got, closer, err := master.Auto(ctx, uri, master.AutoConf{
		OnLog: func(msg string) { fmt.Fprintf(log, "%s's ROS master: %s\n", who, msg) },
	})
	if err != nil {
		return "", nil, err
	}
	fmt.Fprintf(log, "%s: no ROS master answered at %s; started btrobot's own at %s\n", who, uri, got)
	return got, func() { closer() }, nil
}
