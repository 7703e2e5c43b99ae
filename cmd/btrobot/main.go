// Command btrobot is btrobot's one binary: it runs missions on robots and on
// the simulator, checks and ticks trees offline, exports the node palette,
// and carries its own ROS master.
//
// Exit codes: 0 success, 1 the mission or check failed, 2 bad input or usage.
package main

import (
	"flag"
	"io"
	"os"

	"github.com/btrobot/btrobot/internal/cli"
	"github.com/btrobot/btrobot/runtime"
)

// Exit codes, as ARCHITECTURE.md fixes them.
const (
	exitOK     = cli.ExitOK
	exitFailed = cli.ExitFailed
	exitUsage  = cli.ExitUsage
)

type (
	command = cli.Command
	cmdEnv  = cli.Env
)

// commands are btrobot's, in the order `btrobot help` lists them.
func commands() []*command {
	cs := []*command{
		demoCommand(),
		runCommand(),
		tickCommand(),
		replayCommand(),
		benchCommand(),
		checkCommand(),
		hilCommand(),
		nodesCommand(),
		masterCommand(),
		simCommand(),
		studioCommand(),
		serveCommand(),
	}
	for _, c := range cs {
		c.Line = lines[c.Name]
	}
	return cs
}

// lines are the commands' lines in `btrobot help`: what each is for, in
// a few words. `btrobot help COMMAND` gives the rest: its synopsis, its
// summary, an example and its flags.
var lines = map[string]string{
	"demo":   "patrol the simulated office, shown live (needs only a checkout)",
	"run":    "run a mission on a robot or on the simulator",
	"tick":   "tick a tree with no robot attached; JSON lines out",
	"replay": "play a recording through the live view",
	"bench":  "time the ticks of a tree with no robot attached",
	"check":  "validate trees, robot profiles and scenarios",
	"hil":    "run scenarios against the simulator or a robot",
	"nodes":  "print the node palette (list, Groot2 model, XSD, Markdown)",
	"master": "run the embedded ROS master",
	"sim":    "run the simulated world as a ROS node",
	"studio": "serve the browser studio: recordings, editor, runs",
	"serve":  "a mission server on the robot: goals over ROS run missions",
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	p := &cli.Program{Name: "btrobot", Title: "btrobot — a behavior-tree controller runtime for ROS robots",
		Footer:   []string{"Exit codes: 0 success, 1 the mission or check failed, 2 bad input or usage."},
		Commands: commands(),
		Nearest:  func(name string, names []string) []string { return runtime.NearestNames(name, names, 1) }}
	return p.Main(args, stdout, stderr)
}

// newFlags returns a FlagSet whose --help prints the command's synopsis,
// summary, example and flags.
func newFlags(env *cmdEnv, c *command) *flag.FlagSet { return cli.Flags("btrobot", env, c) }

// parseArgs parses flags wherever they appear among the positional
// arguments (cli.ParseArgs).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) { return cli.ParseArgs(fs, args) }

// flagExit turns a flag parsing error into an exit code.
func flagExit(err error) int { return cli.FlagExit(err) }

// multiFlag collects a repeated flag (--set a=1 --set b=2).
type multiFlag = cli.Multi

// flagGiven reports whether the command line set the flag.
func flagGiven(fs *flag.FlagSet, name string) bool { return cli.Given(fs, name) }
