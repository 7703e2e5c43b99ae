package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/btrobot/btrobot/ros/master"
)

func masterCommand() *command {
	c := &command{
		name:    "master",
		args:    "[--port 11311] [--host ADDR]",
		summary: "Run the embedded ROS master (a drop-in for rosmaster) until interrupted.",
		example: "btrobot master --port 11311 &\nROS_MASTER_URI=http://localhost:11311 rostopic list",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		port := fs.Int("port", 11311, "TCP port of the master's XML-RPC API")
		host := fs.String("host", "", "address to listen on (default: all)")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) != 0 || *port < 0 || *port > 65535 {
			fs.Usage()
			return exitUsage
		}
		m, err := master.New(master.Conf{Host: *host, Port: *port})
		if err == nil {
			err = m.Start()
		}
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot master: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(env.stdout, "ROS master listening at %s\n", m.URI())
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		select {
		case <-ctx.Done():
		case <-m.Done():
		}
		if err := m.Close(); err != nil {
			fmt.Fprintf(env.stderr, "btrobot master: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	return c
}
