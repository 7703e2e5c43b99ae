package main

import (
	"fmt"

	"github.com/btrobot/btrobot/ros/master"
)

func masterCommand() *command {
	c := &command{
		Name: "master",
		Args: "[--port 11311] [--host ADDR] [--request-timeout 30s]",
		Summary: "Run the embedded ROS master (a drop-in for rosmaster) until interrupted.\n" +
			"It listens on loopback only unless --host says otherwise (--host 0.0.0.0: every interface, as rosmaster).\n" +
			"A shutdown call from the network is logged with its caller and ends it with exit 1.",
		Example: "btrobot master --port 11311 &\nROS_MASTER_URI=http://localhost:11311 rostopic list\n" +
			"btrobot master --host 0.0.0.0   # for the robots on the network",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		port := fs.Int("port", 11311, "TCP port of the master's XML-RPC API")
		host := fs.String("host", "127.0.0.1", "address to listen on and to advertise; 0.0.0.0 for every interface")
		reqTimeout := fs.Duration("request-timeout", master.DefaultRequestTimeout, "how long a client may take to send one request; one that stalls longer is disconnected")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) != 0 || *port < 0 || *port > 65535 || *host == "" || *reqTimeout <= 0 {
			fs.Usage()
			return exitUsage
		}
		m, err := master.New(master.Conf{
			Host:           *host,
			Port:           *port,
			RequestTimeout: *reqTimeout,
			OnLog:          func(msg string) { fmt.Fprintf(env.Stderr, "btrobot master: %s\n", msg) },
		})
		if err == nil {
			err = m.Start()
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "btrobot master: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(env.Stdout, "ROS master listening at %s\n", m.URI())
		ctx, stop := interruptContext(env.Stderr)
		defer stop()
		select {
		case <-ctx.Done():
		case <-m.Done():
		}
		m.Close() //nolint:errcheck // always nil
		if call, ok := m.StoppedBy(); ok {
			// Not the operator's interrupt: a supervisor should hear of it.
			fmt.Fprintf(env.Stderr, "btrobot master: shut down by %s\n", call)
			return exitFailed
		}
		return exitOK
	}
	return c
}
