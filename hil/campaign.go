package hil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// Files expands paths into scenario files: a file is taken as it is, a
// directory gives every *.scenario.yaml (or .yml) under it, sorted. A path
// that does not exist, or a directory with no scenario, is an error.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && IsScenario(path) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no scenario (*.scenario.yaml) in it", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// Check loads a scenario and the missions it runs, as Run would: every
// problem of the file and of its missions' trees and profiles, each at
// file:line:col.
func Check(path string) (*Scenario, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	if _, err := loadMissions(s); err != nil {
		return nil, err
	}
	return s, nil
}

// CheckFile is Check as btrobot check reports it.
func CheckFile(path string) mission.FileCheck {
	_, err := Check(path)
	if err == nil {
		return mission.FileCheck{}
	}
	var c mission.FileCheck
	var pe *fs.PathError
	var list runtime.ErrorList
	switch {
	case errors.As(err, &pe):
		return mission.FileCheck{Problems: []error{err}, Unreadable: true}
	case errors.As(err, &list):
		for _, e := range list {
			c.Problems = append(c.Problems, e)
		}
	default:
		c.Problems = []error{err}
	}
	return c
}

// Case is one scenario of a campaign: its file, and its result or why it
// could not run.
type Case struct {
	File   string
	Result Result
	Err    error
}

// Passed reports whether the case ran and every expectation held.
func (c Case) Passed() bool { return c.Err == nil && c.Result.Passed() }

// CampaignConf configures RunCampaign.
type CampaignConf struct {
	// Scenarios are loaded scenarios, run in this order.
	Scenarios []*Scenario
	// Jobs is how many scenarios run at once [1].
	Jobs int
	// Log, when set, receives each scenario's lines (RunConf.Log).
	Log func(s *Scenario, line string)
	// Done, when set, is called as each case ends, from the goroutine
	// that ran it.
	Done func(Case)
	// Debugger is each scenario's RunConf.Debugger.
	Debugger func(name string, world func(io.Writer) error) func(mission.Shown) mission.Debugger
}

// RunCampaign runs scenarios, Jobs at a time, each on its own master,
// and returns their cases in the order given.
func RunCampaign(ctx context.Context, c CampaignConf) []Case {
	jobs := max(1, c.Jobs)
	cases := make([]Case, len(c.Scenarios))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, s := range c.Scenarios {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rc := RunConf{Scenario: s, Debugger: c.Debugger}
			if c.Log != nil {
				rc.Log = func(line string) { c.Log(s, line) }
			}
			res, err := Run(ctx, rc)
			cases[i] = Case{File: s.File, Result: res, Err: err}
			if c.Done != nil {
				c.Done(cases[i])
			}
		}()
	}
	wg.Wait()
	return cases
}

// CheckAll expands paths (Files) and checks every scenario found, with its
// missions (Check), before anything runs: the error holds every problem of
// every file.
func CheckAll(paths []string) ([]*Scenario, error) {
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	var errs []error
	for _, f := range files {
		s, err := Check(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w\n%d bad %s; nothing ran", errors.Join(errs...), len(errs), map[bool]string{true: "scenario", false: "scenarios"}[len(errs) == 1])
	}
	return out, nil
}

// AllPassed reports whether every case ran and held all its expectations.
func AllPassed(cases []Case) bool {
	for _, c := range cases {
		if !c.Passed() {
			return false
		}
	}
	return true
}
