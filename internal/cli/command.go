package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes of a program made of Commands: ARCHITECTURE.md fixes them.
const (
	ExitOK     = 0 // success
	ExitFailed = 1 // the mission or check failed
	ExitUsage  = 2 // bad input or usage
)

// HelpWidth is the column help is wrapped at.
const HelpWidth = 80

// Command is one subcommand of a Program.
type Command struct {
	Name    string
	Args    string // the synopsis after the name
	Line    string // its line in the program's help: what it is for, in a few words
	Summary string // the details of `PROG help NAME`
	Example string
	Run     func(env *Env, args []string) int
}

// Env is what a command may touch: its streams. Commands never call
// os.Exit, so tests run them in-process.
type Env struct {
	Stdout, Stderr io.Writer
}

// Program is a command-line program made of commands, as git and go are:
// `PROG COMMAND [ARGS]`, `PROG help [COMMAND]`.
type Program struct {
	Name     string
	Title    string   // the first line of its help
	Footer   []string // lines after the list of commands
	Commands []*Command
	// Nearest names the commands a misspelt name may have meant.
	Nearest func(name string, names []string) []string
}

// Main runs the command args name and returns the exit code.
func (p *Program) Main(args []string, stdout, stderr io.Writer) int {
	env := &Env{Stdout: stdout, Stderr: stderr}
	if len(args) == 0 {
		p.usage(stderr)
		return ExitUsage
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		return p.help(env, args[1:])
	}
	c := p.Find(args[0])
	if c == nil {
		p.unknown(stderr, args[0])
		return ExitUsage
	}
	return c.Run(env, args[1:])
}

// help is `PROG help [COMMAND]`: asked for, the help goes to stdout
// (PROG help run | less) and exits 0; an unknown command is a usage
// error.
func (p *Program) help(env *Env, args []string) int {
	switch {
	case len(args) == 0 || len(args) == 1 && args[0] == "help":
		p.usage(env.Stdout)
		return ExitOK
	case len(args) > 1:
		fmt.Fprintf(env.Stderr, "%s help: one command at a time, not %d\n", p.Name, len(args))
		fmt.Fprintf(env.Stderr, "Usage: %s help [COMMAND]\n", p.Name)
		return ExitUsage
	}
	c := p.Find(args[0])
	if c == nil {
		p.unknown(env.Stderr, args[0])
		return ExitUsage
	}
	return c.Run(&Env{Stdout: env.Stdout, Stderr: env.Stdout}, []string{"--help"})
}

// Find returns the command of that name; nil when there is none.
func (p *Program) Find(name string) *Command {
	for _, c := range p.Commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// unknown says that name is no command, and which it may have meant.
func (p *Program) unknown(w io.Writer, name string) {
	names := []string{"help"}
	for _, c := range p.Commands {
		names = append(names, c.Name)
	}
	fmt.Fprintf(w, "%s: unknown command %q", p.Name, name)
	if p.Nearest != nil {
		if near := p.Nearest(name, names); len(near) > 0 {
			fmt.Fprintf(w, "; did you mean %q?", near[0])
		}
	}
	fmt.Fprintf(w, "\nRun '%s help' for the list of commands.\n", p.Name)
}

// usage lists the commands, one aligned line each.
func (p *Program) usage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage: %s COMMAND [ARGS]\n\nCommands:\n", p.Title, p.Name)
	width := 0
	for _, c := range p.Commands {
		width = max(width, len(c.Name))
	}
	for _, c := range p.Commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.Name, c.Line)
	}
	fmt.Fprintf(w, "\nRun '%s help COMMAND' for a command's details, flags and an example.\n", p.Name)
	for _, l := range p.Footer {
		fmt.Fprintln(w, l)
	}
}

// Flags returns the command's FlagSet, whose --help prints its synopsis,
// summary, example and flags, on env's stderr.
func Flags(prog string, env *Env, c *Command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "%s\n\n%s\n", Synopsis(prog+" "+c.Name, c.Args, HelpWidth), Wrap(c.Summary, HelpWidth))
		if c.Example != "" {
			fmt.Fprintf(env.Stderr, "\nExample:\n  %s\n", strings.ReplaceAll(c.Example, "\n", "\n  "))
		}
		var hasFlags bool
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(env.Stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// FlagExit turns a flag parsing error into an exit code: 0 for --help.
func FlagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	return ExitUsage
}
