package mission

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/btrobot/btrobot/internal/cli"
)

// FleetLines lays a fleet's runs out on one terminal (RunFleetLines).
type FleetLines struct {
	Out, Err io.Writer
	Keys     []string // the blackboard entries each robot's lines show
	Quiet    bool     // no live lines: each robot's summary at its end
}

// RunFleetLines runs rc's mission on every robot namespace at once
// (RunFleet), each robot's lines prefixed with its name ("robot1| "):
// plain lines, since one terminal cannot hold several live frames; its
// log on l.Err; its end, once all have ended, on l.Out (Report.WriteEnd)
// for each robot whose mission started.
func RunFleetLines(ctx context.Context, rc RunConf, namespaces []string, l FleetLines) ([]Report, error) {
	var mu sync.Mutex // one line at a time, whole, from every robot
	confs := make([]RunConf, len(namespaces))
	outs := make([]io.Writer, len(namespaces))
	for i, ns := range namespaces {
		name := path.Base("/" + strings.Trim(ns, "/"))
		out := &cli.Prefixed{Mu: &mu, W: l.Out, Prefix: name + "| "}
		errs := &cli.Prefixed{Mu: &mu, W: l.Err, Prefix: name + "| "}
		c := rc
		c.ROS.Namespace = ns
		c.Log = func(line string) { fmt.Fprintln(errs, line) }
		if !l.Quiet {
			c.Display = LiveView(LiveViewConf{Out: out, Keys: l.Keys, Headless: true})
		}
		confs[i], outs[i] = c, out
	}
	reps, err := RunFleet(ctx, confs)
	for i, rep := range reps {
		if rep.Tree != nil {
			rep.WriteEnd(outs[i], l.Quiet)
		}
	}
	return reps, err
}

// RunFleet runs several missions in one process at once, one per robot:
// each on its own connection (its own namespace, so its own topics and
// node name), with its own tree, blackboard and loop, as a fleet's
// robots each run their own mission. It returns when every run has ended,
// their reports in the order of confs; cancelling ctx stops them all.
// The error joins the runs that could not start (each named by its
// namespace); the others ran.
//
// Runs on connections of their own (RunConf.ROS) must differ in
// namespace or node name: a ROS master keeps one node of a name. Runs
// that share a Record file or a Groot port get their own (see
// spreadWatchers): run.robot1.db3, and the next pair of ports.
func RunFleet(ctx context.Context, confs []RunConf) ([]Report, error) {
	confs = spreadWatchers(confs)
	seen := map[string]int{}
	for i, c := range confs {
		if c.Conn != nil {
			continue
		}
		node := c.ROS.Name
		if node == "" {
			node = "btrobot"
		}
		name := strings.Trim(c.ROS.Namespace, "/") + "/" + node
		if j, ok := seen[name]; ok {
			return nil, fmt.Errorf("fleet: missions %d and %d join the graph with the same namespace and node name (%q, %q): give each robot its namespace", j+1, i+1, c.ROS.Namespace, c.ROS.Name)
		}
		seen[name] = i
	}
	reports := make([]Report, len(confs))
	errs := make([]error, len(confs))
	var wg sync.WaitGroup
	for i, c := range confs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := Run(ctx, c)
			if err != nil {
				ns := c.ROS.Namespace
				if c.Conn != nil {
					ns = c.Conn.Namespace()
				}
				err = fmt.Errorf("fleet: the mission in %s: %w", ns, err)
			}
			reports[i], errs[i] = rep, err
		}()
	}
	wg.Wait()
	return reports, errors.Join(errs...)
}
