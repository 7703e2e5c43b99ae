package studio

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/record"
)

// Flags are the command line's --ui [ADDR] and --allow-control (btrobot
// run, demo, hil, replay and studio): whether to serve the studio, where,
// and whether it may debug.
type Flags struct {
	Addr         string // "" for no studio
	AllowControl bool
	Dir          string // the editor's folder (btrobot studio DIR)
	// Follow has the page open each new run as it comes (btrobot serve:
	// a run a goal).
	Follow bool
}

// addrFlag is --ui: alone it means DefaultAddr.
type addrFlag struct{ addr *string }

func (u addrFlag) String() string {
	if u.addr == nil {
		return ""
	}
	return *u.addr
}

func (u addrFlag) Set(v string) error {
	switch v {
	case "true":
		v = DefaultAddr
	case "false":
		v = ""
	}
	*u.addr = v
	return nil
}

func (addrFlag) IsBoolFlag() bool { return true }

// Add declares --ui and --allow-control on fs. Parse the arguments after
// FlagArgs, so that --ui takes an address after a space.
func (f *Flags) Add(fs *flag.FlagSet) {
	fs.Var(addrFlag{&f.Addr}, "ui", "serve the browser studio on `ADDR` (--ui alone: "+DefaultAddr+"); an address beyond loopback\n"+
		"needs the token printed at start")
	fs.BoolVar(&f.AllowControl, "allow-control", false, "let the studio debug: breakpoints, pause, step, forced results, blackboard writes")
}

// FlagArgs turns "--ui ADDR" into "--ui=ADDR", so that --ui takes an
// address whether or not it is joined by "=" (an argument after it that
// looks like no address is left alone).
func FlagArgs(args []string) []string {
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

// Check says what is wrong with the flags, before anything runs.
func (f *Flags) Check() error {
	if f.AllowControl && f.Addr == "" {
		return fmt.Errorf("--allow-control needs --ui: it lets the studio debug")
	}
	return nil
}

// Start starts the studio when --ui was given (nil otherwise) and says on
// log where to open it, and its token when it needs one.
func (f *Flags) Start(log io.Writer, title string) (*Server, error) {
	if f.Addr == "" {
		return nil, f.Check()
	}
	s, err := New(Conf{Addr: f.Addr, AllowControl: f.AllowControl, Title: title, Dir: f.Dir, Follow: f.Follow})
	if err != nil {
		return nil, err
	}
	mode := "read-only"
	if f.AllowControl {
		mode = "debugging allowed"
	}
	fmt.Fprintf(log, "studio: %s (%s)\n", s.URL(), mode)
	if t := s.Token(); t != "" {
		fmt.Fprintf(log, "studio: token %s (every request beyond loopback needs it)\n", t)
	}
	return s, nil
}

// Attach gives the run to the studio; a nil studio leaves rc as it is.
func (s *Server) Attach(rc *mission.RunConf, c LiveConf) {
	if s != nil {
		rc.Debugger = s.Debugger(c)
	}
}

// ServeUntil keeps a studio open after its work ended, until ctx ends,
// so that the page can still be read; it says so on log. A nil studio
// returns at once.
func (s *Server) ServeUntil(ctx context.Context, log io.Writer) {
	if s == nil {
		return
	}
	fmt.Fprintf(log, "studio: still serving %s; Ctrl-C to quit\n", s.URL())
	<-ctx.Done()
}

// RecordingsIn lists the recordings (.db3, .btdb, .btlog) directly in
// dir, sorted.
func RecordingsIn(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if record.IsRecordingName(e.Name()) && !e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}
