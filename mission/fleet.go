package mission

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

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
