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
)

// Exit codes, as DESIGN.md fixes them.
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
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	env := &cmdEnv{stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			if c := findCommand(args[1]); c != nil {
				return c.run(env, []string{"--help"})
			}
		}
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c := findCommand(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "btrobot: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(env, args[1:])
}

func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "btrobot — a behavior-tree controller runtime for ROS robots")
	fmt.Fprintln(w, "\nUsage: btrobot COMMAND [ARGS]   (btrobot help COMMAND for more)")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nExit codes: 0 success, 1 the mission or check failed, 2 bad input or usage.")
}

// newFlags returns a FlagSet whose --help prints the command's synopsis,
// summary, example and flags.
func newFlags(env *cmdEnv, c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: btrobot %s %s\n\n%s\n", c.name, c.args, c.summary)
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
// arguments (btrobot tick FILE --ticks 5), returning the positionals. A
// help request returns errHelp.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagExit turns a flag parsing error into an exit code.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// multiFlag collects a repeated flag (--set a=1 --set b=2).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
