package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/studio"
)

// uiFlags are --ui [ADDR] and --allow-control (run, demo, replay, studio).
type uiFlags struct {
	addr         string // "" for no studio
	allowControl bool
	dir          string // the editor's folder (btrobot studio DIR)
}

// uiAddr is --ui: alone it means studio.DefaultAddr.
type uiAddr struct{ addr *string }

func (u uiAddr) String() string {
	if u.addr == nil {
		return ""
	}
	return *u.addr
}

func (u uiAddr) Set(v string) error {
	if v == "true" {
		v = studio.DefaultAddr
	}
	if v == "false" {
		v = ""
	}
	*u.addr = v
	return nil
}

func (uiAddr) IsBoolFlag() bool { return true }

func (u *uiFlags) addFlags(fs *flag.FlagSet) {
	fs.Var(uiAddr{&u.addr}, "ui", "serve the browser studio on `ADDR` (--ui alone: "+studio.DefaultAddr+"); an address beyond loopback\n"+
		"needs the token printed at start")
	fs.BoolVar(&u.allowControl, "allow-control", false, "let the studio debug: breakpoints, pause, step, forced results, blackboard writes")
}

// uiArgs turns "--ui ADDR" into "--ui=ADDR", so that --ui takes an
// address whether or not it is joined by "=".
func uiArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--ui" || a == "-ui") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && strings.Contains(args[i+1], ":") {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// check says what is wrong with the flags, before anything runs.
func (u *uiFlags) check() error {
	if u.allowControl && u.addr == "" {
		return fmt.Errorf("--allow-control needs --ui: it lets the studio debug")
	}
	return nil
}

// start starts the studio when --ui was given (nil otherwise) and says
// where to open it.
func (u *uiFlags) start(env *cmdEnv, title string) (*studio.Server, error) {
	if u.addr == "" {
		return nil, u.check()
	}
	s, err := studio.New(studio.Conf{Addr: u.addr, AllowControl: u.allowControl, Title: title, Dir: u.dir})
	if err != nil {
		return nil, err
	}
	mode := "read-only"
	if u.allowControl {
		mode = "debugging allowed"
	}
	fmt.Fprintf(env.stderr, "studio: %s (%s)\n", s.URL(), mode)
	if t := s.Token(); t != "" {
		fmt.Fprintf(env.stderr, "studio: token %s (every request beyond loopback needs it)\n", t)
	}
	return s, nil
}

// attach gives the run to the studio, if there is one.
func attachStudio(s *studio.Server, rc *mission.RunConf, c studio.LiveConf) {
	if s != nil {
		rc.Debugger = s.Debugger(c)
	}
}

func studioCommand() *command {
	c := &command{
		name: "studio",
		args: "[DIR] [--ui ADDR] [--allow-control]",
		summary: "Serve the browser studio on DIR (default: the current directory): its recordings (.db3, .btlog), each\n" +
			"one's tree, statuses, reasons and blackboard at any instant, played at a speed or sought; and its XML\n" +
			"trees in the editor (palette, inspector, checked as you type against a robot profile and a world,\n" +
			"saved as BT.CPP v4 XML; nothing outside DIR but the shipped profiles and worlds), and Run: the edited\n" +
			"mission on the simulator in this process (its own ROS master on loopback; no --allow-control needed),\n" +
			"shown live until Stop. Runs show live with --ui on run, demo, hil and replay. Serves until interrupted.",
		example: "btrobot demo --record /tmp/rec/demo.db3 --speed 0 --headless && btrobot studio /tmp/rec",
	}
	c.run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		var ui uiFlags
		ui.addFlags(fs)
		pos, err := parseArgs(fs, uiArgs(args))
		if err != nil {
			return flagExit(err)
		}
		if len(pos) > 1 {
			fs.Usage()
			return exitUsage
		}
		dir := "."
		if len(pos) == 1 {
			dir = pos[0]
		}
		files, err := recordingsIn(dir)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot studio: %v\n", err)
			return exitUsage
		}
		if ui.addr == "" {
			ui.addr = studio.DefaultAddr
		}
		ui.dir = dir
		srv, err := ui.start(env, "btrobot studio "+dir)
		if err != nil {
			fmt.Fprintf(env.stderr, "btrobot studio: %v\n", err)
			return exitFailed
		}
		defer srv.Close()
		// Interrupting while the recordings load ends the program as it
		// would later: the server closed, its pages told.
		ctx, stop := interruptContext(env.stderr)
		defer stop()
		for _, f := range files {
			if ctx.Err() != nil {
				return exitOK
			}
			if err := srv.AddRecording(f); err != nil {
				fmt.Fprintf(env.stderr, "btrobot studio: %v (left out)\n", err)
				continue
			}
			fmt.Fprintf(env.stderr, "studio: %s\n", f)
		}
		<-ctx.Done()
		return exitOK
	}
	return c
}

// recordingsIn lists the recordings directly in dir.
func recordingsIn(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".db3", ".btdb", ".btlog":
			if !e.IsDir() {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// serveUntil keeps a studio open after its work ended, until ctx ends,
// so that the page can still be read.
func serveUntil(ctx context.Context, env *cmdEnv, s *studio.Server) {
	if s == nil {
		return
	}
	fmt.Fprintf(env.stderr, "studio: still serving %s; Ctrl-C to quit\n", s.URL())
	<-ctx.Done()
}
