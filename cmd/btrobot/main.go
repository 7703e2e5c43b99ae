// Command btrobot is btrobot's one binary: it runs missions on robots and on
// the simulator, checks and ticks trees offline, exports the node palette,
// and carries its own ROS master.
//
// Exit codes: 0 success, 1 the mission or check failed, 2 bad input or usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/btrobot/btrobot/internal/cli"
	"github.com/btrobot/btrobot/runtime"
)

// Exit codes, as ARCHITECTURE.md fixes them.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// command is one subcommand of btrobot.
type command struct {
	name    string
	args    string // synopsis after the name
	summary string
	example string
	run     func(env *cmdEnv, args []string) int
}

// cmdEnv is what a command may touch: its streams. Commands never call
// os.Exit, so tests run them in-process.
type cmdEnv struct {
	stdout, stderr io.Writer
}

func commands() []*command {
	return []*command{
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
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	env := &cmdEnv{stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		return help(env, args[1:])
	}
	c := findCommand(args[0])
	if c == nil {
		unknownCommand(stderr, args[0])
		return exitUsage
	}
	return c.run(env, args[1:])
}

// help is `btrobot help [COMMAND]`: asked for, the help goes to stdout
// (btrobot help run | less) and exits 0; an unknown command is a usage
// error.
func help(env *cmdEnv, args []string) int {
	switch {
	case len(args) == 0 || len(args) == 1 && args[0] == "help":
		usage(env.stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(env.stderr, "btrobot help: one command at a time, not %d\n", len(args))
		fmt.Fprintln(env.stderr, "Usage: btrobot help [COMMAND]")
		return exitUsage
	}
	c := findCommand(args[0])
	if c == nil {
		unknownCommand(env.stderr, args[0])
		return exitUsage
	}
	return c.run(&cmdEnv{stdout: env.stdout, stderr: env.stdout}, []string{"--help"})
}

// unknownCommand says that name is no command, and which it may have
// meant.
func unknownCommand(w io.Writer, name string) {
	names := []string{"help"}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	fmt.Fprintf(w, "btrobot: unknown command %q", name)
	if near := runtime.NearestNames(name, names, 1); len(near) > 0 {
		fmt.Fprintf(w, "; did you mean %q?", near[0])
	}
	fmt.Fprintln(w, "\nRun 'btrobot help' for the list of commands.")
}

func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
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

// line is c's line in `btrobot help`: its entry in lines, else the first
// line of its summary.
func (c *command) line() string {
	if l, ok := lines[c.name]; ok {
		return l
	}
	first, _, _ := strings.Cut(c.summary, "\n")
	return first
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "btrobot — a behavior-tree controller runtime for ROS robots")
	fmt.Fprintln(w, "\nUsage: btrobot COMMAND [ARGS]")
	fmt.Fprintln(w, "\nCommands:")
	cs := commands()
	width := 0
	for _, c := range cs {
		width = max(width, len(c.name))
	}
	for _, c := range cs {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.line())
	}
	fmt.Fprintln(w, "\nRun 'btrobot help COMMAND' for a command's details, flags and an example.")
	fmt.Fprintln(w, "Exit codes: 0 success, 1 the mission or check failed, 2 bad input or usage.")
}

// helpWidth is the column a command's summary is wrapped at in its help.
const helpWidth = 80

// newFlags returns a FlagSet whose --help prints the command's synopsis,
// summary, example and flags.
func newFlags(env *cmdEnv, c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "%s\n\n%s\n", cli.Synopsis("btrobot "+c.name, c.args, helpWidth), cli.Wrap(c.summary, helpWidth))
		if c.example != "" {
			fmt.Fprintf(env.stderr, "\nExample:\n  %s\n", strings.ReplaceAll(c.example, "\n", "\n  "))
		}
		var hasFlags bool
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(env.stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseArgs parses flags wherever they appear among the positional
// arguments (cli.ParseArgs).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) { return cli.ParseArgs(fs, args) }

// flagExit turns a flag parsing error into an exit code.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// multiFlag collects a repeated flag (--set a=1 --set b=2).
type multiFlag = cli.Multi

// flagGiven reports whether the command line set the flag.
func flagGiven(fs *flag.FlagSet, name string) bool { return cli.Given(fs, name) }
