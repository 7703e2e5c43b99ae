package simnode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/btrobot/btrobot/sim"
)

// renderFormat returns "png" or "svg" for a file name, or an error.
func renderFormat(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "png", nil
	case ".svg":
		return "svg", nil
	}
	return "", fmt.Errorf("render to %q: the file name must end in .png or .svg", path)
}

// Render draws the world as it is now (the map, obstacles, docks and
// places, each robot's trajectory, its move_base and dock goals, and the
// path it is following) to each file, PNG or SVG by its extension; with no
// paths, to Conf.Render. It returns the files written.
func (n *Node) Render(paths ...string) ([]string, error) {
	if len(paths) == 0 {
		paths = n.conf.Render
	}
	if len(paths) == 0 {
		return nil, errors.New("render: no file to write (give a path, or Conf.Render)")
	}
	formats := make([]string, len(paths))
	for k, p := range paths {
		f, err := renderFormat(p)
		if err != nil {
			return nil, err
		}
		formats[k] = f
	}
	images := make([]bytes.Buffer, len(paths))
	n.mu.Lock()
	opt := n.renderOptions()
	var err error
	for k := range paths {
		if formats[k] == "png" {
			err = sim.RenderPNG(&images[k], n.w, opt)
		} else {
			err = sim.RenderSVG(&images[k], n.w, opt)
		}
		if err != nil {
			break
		}
	}
	n.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	var written []string
	for k, p := range paths {
		if err := os.WriteFile(p, images[k].Bytes(), 0o644); err != nil {
			return written, fmt.Errorf("render: %w", err)
		}
		written = append(written, p)
	}
	return written, nil
}

// WriteSVG draws the world as it is now, as Render does, as SVG to w
// (the browser studio's robot view).
func (n *Node) WriteSVG(w io.Writer) error {
	var img bytes.Buffer
	n.mu.Lock()
	opt := n.renderOptions()
	opt.Title = ""
	err := sim.RenderSVG(&img, n.w, opt)
	n.mu.Unlock()
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	_, err = w.Write(img.Bytes())
	return err
}

// renderOptions gathers the goals and paths to draw; under n.mu.
func (n *Node) renderOptions() sim.RenderOptions {
	opt := sim.RenderOptions{Title: "btrobot sim"}
	for _, f := range n.faces {
		opt.Goals = append(opt.Goals, f.goals...)
		if m := f.drive; m != nil {
			path := f.nav.Path()
			if m.kind == docking && m.final {
				path = f.final.Path()
			}
			if len(path) > 0 {
				opt.Paths = append(opt.Paths, sim.PathMarker{Robot: f.r.Name(), Path: path})
			}
		}
	}
	return opt
}

// onRender serves ~render (std_srvs/Trigger): it writes Conf.Render and
// answers with the files written.
func (n *Node) onRender(any) (any, error) {
	files, err := n.Render()
	if err != nil {
		return &std_srvs.TriggerRes{Success: false, Message: err.Error()}, nil
	}
	return &std_srvs.TriggerRes{Success: true, Message: strings.Join(files, " ")}, nil
}
