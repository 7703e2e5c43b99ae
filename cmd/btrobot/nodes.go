package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/trees"
)

func nodesCommand() *command {
	c := &command{
		Name:    "nodes",
		Args:    "[--format text|groot|xsd|markdown]",
		Summary: "Print the node palette: a list, a Groot2 TreeNodesModel, an XSD, or the Markdown reference.",
		Example: "btrobot nodes --format groot > btrobot_nodes.xml   # load into Groot2\n" +
			"btrobot nodes --format markdown > docs/nodes.md",
	}
	c.Run = func(env *cmdEnv, args []string) int {
		fs := newFlags(env, c)
		format := fs.String("format", "text", "text, groot, xsd or markdown")
		pos, err := parseArgs(fs, args)
		if err != nil {
			return flagExit(err)
		}
		if len(pos) != 0 {
			fs.Usage()
			return exitUsage
		}
		reg := mission.Nodes()
		switch *format {
		case "text":
			tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			for _, t := range reg.Types() {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, t.Kind, t.Summary)
			}
			err = tw.Flush()
		case "groot":
			err = trees.WriteGrootModel(env.Stdout, reg)
		case "xsd":
			err = trees.WriteXSD(env.Stdout, reg)
		case "markdown":
			err = trees.WriteMarkdown(env.Stdout, reg)
		default:
			fmt.Fprintf(env.Stderr, "unknown format %q: want text, groot, xsd or markdown\n", *format)
			return exitUsage
		}
		if err != nil {
			fmt.Fprintln(env.Stderr, err)
			return exitFailed
		}
		return exitOK
	}
	return c
}
