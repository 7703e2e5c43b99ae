package examples

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
)

// Example_studio attaches btrobot's browser studio to a mission your
// program runs: the studio is an HTTP server (studio.New), and each run
// given its Debugger shows in the page live, statuses, reasons, the
// blackboard and the loop's figures. With AllowControl the page may also
// set breakpoints, pause and step; while it holds the tree, Run stops the
// robot.
//
// A real program prints srv.URL() for a person to open; this one asks the
// studio's JSON API what it shows, as the page does. Port 0 picks a free
// port, on loopback: the studio binds loopback unless told otherwise.
func Example_studio() {
	srv, err := studio.New(studio.Conf{Addr: "127.0.0.1:0", Title: "my robot"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	// A mission on btrobot's simulator, as in Example_embedRun.
	m, err := mission.Load(mission.LoadConf{
		Tree: "testdata/reception.xml", Profile: "../robots/sim.yaml", Places: "../worlds/office",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	simulator, err := mission.StartSim(mission.SimConf{
		WorldDir: "../worlds/office", Seed: 1, Robots: []mission.SimRobot{{Name: "robot1"}}, // at its spawn place
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer simulator.Close()
	conf, err := simulator.RunConf(m, "robot1")
	if err != nil {
		fmt.Println(err)
		return
	}

	// The one line that attaches the studio to the run.
	conf.Debugger = srv.Debugger(studio.LiveConf{Name: "robot1"})

	report, err := mission.Run(context.Background(), conf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("outcome:", report.Outcome)

	// What the page would show: the runs, and a run's tree.
	var runs struct {
		Title string
		Runs  []struct {
			ID   int
			Name string
			Kind string
		}
	}
	if err := getJSON("http://"+srv.Addr()+"/api/runs", &runs); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("studio:", runs.Title)
	for _, r := range runs.Runs {
		var tree struct {
			Nodes []struct{ Path, Type string }
		}
		if err := getJSON(fmt.Sprintf("http://%s/api/runs/%d/tree", srv.Addr(), r.ID), &tree); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("run %d: %s (%s)\n", r.ID, r.Name, r.Kind)
		for _, n := range tree.Nodes {
			fmt.Printf("  %-40s %s\n", n.Path, n.Type)
		}
	}
	// Output:
	// outcome: succeeded
	// studio: my robot
	// run 1: robot1 (live)
	//   Reception/to_reception                   Sequence
	//   Reception/to_reception/BatteryAbove      BatteryAbove
	//   Reception/to_reception/NavigateTo        NavigateTo
}

// getJSON reads the JSON at url into v, on a connection of its own that
// it closes (no idle connection is left behind).
func getJSON(url string, v any) error {
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
