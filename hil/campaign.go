package hil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
)

// Files expands paths into scenario files: a file is taken as it is, a
// directory gives every *.scenario.yaml (or .yml) under it, sorted. A path
// that does not exist, or a directory with no scenario, is an error.
func Files(paths []string) ([]string, error) {
	found, err := expand(paths)
	var out []string
	for _, f := range found {
		out = append(out, f.path)
	}
	return out, err
}

// scenarioFile is a file Files found: named on the command line, or found
// by walking a directory.
type scenarioFile struct {
	path   string
	walked bool
}

func expand(paths []string) ([]scenarioFile, error) {
	var out []scenarioFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, scenarioFile{path: p})
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
		for _, f := range found {
			out = append(out, scenarioFile{path: f, walked: true})
		}
	}
	return out, nil
}

// Check loads a scenario and the missions it runs, as Run would: every
// problem of the file and of its missions' trees and profiles, each at
// file:line:col. A file with a matrix gives its first run; CheckRuns
// checks and gives them all.
func Check(path string) (*Scenario, error) {
	runs, err := CheckRuns(path, nil)
	if err != nil {
		return nil, err
	}
	return runs[0], nil
}

// CheckRuns is LoadRuns with every run's missions loaded, as Run would
// load them; a problem shared by runs is said once.
func CheckRuns(path string, seeds []uint64) ([]*Scenario, error) {
	runs, err := LoadRuns(path, seeds)
	if err != nil {
		return nil, err
	}
	checked := map[string]bool{}
	var errs []error
	for _, s := range runs {
		var keys []string
		for _, r := range s.Robots {
			keys = append(keys, strings.Join([]string{r.Mission.Tree, r.Mission.Main, r.Mission.Profile, r.Mission.Places, r.Mission.Substitute}, "\x00"))
		}
		key := strings.Join(keys, "\x01")
		if checked[key] {
			continue
		}
		checked[key] = true
		if _, err := loadMissions(s); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return runs, nil
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
	// Progress, when set, is told how far the campaign has come as its
	// runs advance (a few times a second at most) and as each ends, one
	// call at a time, from the runs' goroutines: it must not block.
	Progress func(Progress)
	// Debugger is each scenario's RunConf.Debugger.
	Debugger func(name string, world func(io.Writer) error) func(mission.Shown) mission.Debugger
	// Record, Picture and Master are RunConf's, for every run.
	Record, Master string
	// Transport is RunConf's, for every run.
	Transport string
	Picture   bool
}

// RunCampaign runs scenarios, Jobs at a time, each on its own master,
// and returns their cases in the order given.
func RunCampaign(ctx context.Context, c CampaignConf) []Case {
	jobs := max(1, c.Jobs)
	cases := make([]Case, len(c.Scenarios))
	sem := make(chan struct{}, jobs)
	var track *tracker
	if c.Progress != nil {
		track = newTracker(c.Scenarios, c.Progress)
	}
	var wg sync.WaitGroup
	for i, s := range c.Scenarios {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rc := RunConf{Scenario: s, Debugger: c.Debugger, Record: c.Record, Picture: c.Picture, Master: c.Master, Transport: c.Transport}
			if c.Log != nil {
				rc.Log = func(line string) { c.Log(s, line) }
			}
			if track != nil {
				rc.Progress = func(at time.Duration) { track.advanced(i, at) }
			}
			res, err := Run(ctx, rc)
			cases[i] = Case{File: s.File, Result: res, Err: err}
			if track != nil {
				track.ended(i, res.SimTime)
			}
			if c.Done != nil {
				c.Done(cases[i])
			}
		}()
	}
	wg.Wait()
	return cases
}

// Selection chooses the runs of a campaign (Plan): every run of every
// file, or those of some seeds, of some parameters, of one shard.
type Selection struct {
	// Seeds, when not nil, replace every file's seeds (--seeds A..B).
	Seeds []uint64
	// Only keeps the runs whose parameters match (--only).
	Only Selector
	// Shard and Shards, when Shards > 0, keep shard Shard of Shards
	// (--shard K/N): see ShardOf.
	Shard, Shards int
	// Long keeps the long scenarios (long: true) found in directories
	// (--long); a long scenario named as a file always runs.
	Long bool
}

// Planned is a campaign as Plan made it.
type Planned struct {
	// Runs are the runs, in the order of the files and their matrices.
	Runs []*Scenario
	// LeftOut are the long scenarios found in directories and left out
	// (Selection.Long not set), by file.
	LeftOut []string
}

// CheckAll expands paths (Files) and checks every run of every scenario
// found (CheckRuns) before anything runs: the error holds every problem of
// every file.
func CheckAll(paths []string) ([]*Scenario, error) {
	p, err := Plan(paths, Selection{Long: true})
	return p.Runs, err
}

// Plan is CheckAll with a selection: the campaign's runs, in the order of
// the files and of their matrices, then those the selection keeps. A long
// scenario found in a directory is left out unless sel.Long (a soak in a
// folder of quick checks must not turn a run of seconds into minutes). A
// selection that keeps nothing is an error (a CI job that runs nothing
// should say so), unless it is a shard: a campaign may have fewer runs
// than shards.
func Plan(paths []string, sel Selection) (Planned, error) {
	files, err := expand(paths)
	if err != nil {
		return Planned{}, err
	}
	var p Planned
	var errs []error
	for _, f := range files {
		runs, err := CheckRuns(f.path, sel.Seeds)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if f.walked && !sel.Long && len(runs) > 0 && runs[0].Long {
			p.LeftOut = append(p.LeftOut, f.path)
			continue
		}
		p.Runs = append(p.Runs, runs...)
	}
	if len(errs) > 0 {
		return Planned{}, fmt.Errorf("%w\n%d bad %s; nothing ran", errors.Join(errs...), len(errs), map[bool]string{true: "scenario", false: "scenarios"}[len(errs) == 1])
	}
	if len(p.Runs) == 0 && len(p.LeftOut) > 0 {
		return Planned{}, fmt.Errorf("every scenario found is long (%s): --long runs them", strings.Join(p.LeftOut, ", "))
	}
	if len(sel.Only) > 0 {
		p.Runs = slices.DeleteFunc(p.Runs, func(s *Scenario) bool { return !sel.Only.Match(s) })
		if len(p.Runs) == 0 {
			return Planned{}, fmt.Errorf("no run has %s", sel.Only)
		}
	}
	if sel.Shards > 0 {
		p.Runs = ShardOf(p.Runs, sel.Shard, sel.Shards)
	}
	return p, nil
}

// ShardOf returns shard k (1 to n) of a campaign's runs: the runs whose
// place in the campaign, counted from 0, is k-1 modulo n. The n shards
// partition the campaign exactly, each within one run of the others in
// size, and a shard is the same on every machine that plans the same
// files.
func ShardOf(runs []*Scenario, k, n int) []*Scenario {
	var out []*Scenario
	for i, s := range runs {
		if i%n == k-1 {
			out = append(out, s)
		}
	}
	return out
}

// ParseShard reads --shard K/N: 1 ≤ K ≤ N.
func ParseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	k, errK := strconv.Atoi(strings.TrimSpace(a))
	n, errN := strconv.Atoi(strings.TrimSpace(b))
	if !ok || errK != nil || errN != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("shard %q: want K/N with 1 ≤ K ≤ N, such as 2/4", s)
	}
	return k, n, nil
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

// ParseSelection reads the command line's selection: --seeds, --only and
// --shard as written (empty: not given), and --long.
func ParseSelection(seeds, only, shard string, long bool) (Selection, error) {
	sel := Selection{Long: long}
	var err error
	if seeds != "" {
		if sel.Seeds, err = ParseSeeds(seeds); err != nil {
			return sel, err
		}
	}
	if only != "" {
		if sel.Only, err = ParseSelector(only); err != nil {
			return sel, err
		}
	}
	if shard != "" {
		sel.Shard, sel.Shards, err = ParseShard(shard)
	}
	return sel, err
}
