package mission

import (
	"errors"
	"fmt"

	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/bridge"
	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// FileCheck is what CheckFile found in one file.
type FileCheck struct {
	// Problems are every problem found, each with file:line:col where it
	// has one.
	Problems []error
	// Unreadable is set when the file could not be read or is not XML or
	// YAML at all, rather than saying something wrong.
	Unreadable bool
	// Warnings are what btrobot reads (as BT.CPP does) but other XML tools
	// reject, such as '--' in a comment: file:line:col each.
	Warnings []trees.Warning
}

// CheckFile validates one file by its name: a robot profile (.yaml, .yml)
// on its own, a tree file against reg.
func CheckFile(reg *runtime.Registry, path string) FileCheck {
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		return checkProfile(path)
	}
	warnings := trees.Lint(path)
	err := trees.CheckFile(reg, path)
	if err == nil {
		return FileCheck{Warnings: warnings}
	}
	var le *trees.LoadError
	if errors.As(err, &le) {
		c := FileCheck{Unreadable: le.Unreadable, Warnings: warnings}
		for _, e := range le.Errs {
			c.Problems = append(c.Problems, e)
		}
		return c
	}
	return FileCheck{Problems: []error{fmt.Errorf("%s: %w", path, err)}, Unreadable: true}
}

func checkProfile(path string) FileCheck {
	data, err := input.ReadFile(path, input.Profile)
	if err != nil {
		return FileCheck{Problems: []error{err}, Unreadable: true}
	}
	var c FileCheck
	var node yaml.Node
	if err := yaml.Unmarshal(data, &node); err != nil {
		c.Unreadable = true
	}
	_, err = bridge.ParseProfile(data, path, nil)
	var list runtime.ErrorList
	switch {
	case err == nil:
	case errors.As(err, &list):
		for _, e := range list {
			c.Problems = append(c.Problems, e)
		}
	default:
		c.Problems = []error{fmt.Errorf("%s: %w", path, err)}
	}
	return c
}
