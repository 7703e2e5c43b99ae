package sim_test

import (
	"bytes"
	"encoding/xml"
	"image/color"
	"image/png"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

func renderedWorld(t testing.TB) *sim.World {
	t.Helper()
	w := loadOffice(t, sim.WorldConf{})
	r := addRobot(t, w, sim.RobotConf{Name: "robot1", Spawn: sim.Pose{X: -6, Y: 0}})
	addRobot(t, w, sim.RobotConf{Name: "robot2", Spawn: sim.Pose{X: 4, Y: 0, Yaw: 3}})
	require.NoError(t, w.PlaceObstacle("pallet", sim.Rect{MinX: 0, MinY: -0.9, MaxX: 0.6, MaxY: -0.3}))
	hold(w, r, sim.Twist{Linear: 0.4, Angular: 0.1}, 5*time.Second)
	return w
}

func TestRenderPNG(t *testing.T) {
	w := renderedWorld(t)
	var buf bytes.Buffer
	goal := sim.Pose{X: 2.5, Y: 3.5}
	require.NoError(t, sim.RenderPNG(&buf, w, sim.RenderOptions{Scale: 3, Title: "test", Goals: []sim.GoalMarker{{Robot: "robot1", Pose: goal}}}))
	img, err := png.Decode(&buf)
	require.NoError(t, err)
	b := img.Bounds()
	require.Equal(t, 400*3, b.Dx(), "image %v, want 1200x720 (3 pixels per cell)", b)
	require.Equal(t, 240*3, b.Dy(), "image %v, want 1200x720 (3 pixels per cell)", b)
	// World (x, y) is pixel ((x+10)/0.05*3, (6-y)/0.05*3): origin (-10, -6), 240 rows.
	px := func(x, y float64) (int, int) { return int((x + 10) / 0.05 * 3), int((6 - y) / 0.05 * 3) }
	at := func(x, y float64) color.RGBA {
		i, j := px(x, y)
		r, g, b, _ := img.At(i, j).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
	}
	for _, tc := range []struct {
		what string
		x, y float64
		want color.RGBA
	}{
		{"free floor", 0, 0.6, color.RGBA{255, 255, 255, 255}},
		{"corridor wall", -1, -1.05, color.RGBA{45, 45, 50, 255}},
		{"unknown outside the building", 9.9, -5.9, color.RGBA{205, 205, 210, 255}},
		{"the pallet", 0.3, -0.6, color.RGBA{235, 130, 20, 255}},
		{"robot2's body", 4, -0.1, color.RGBA{220, 50, 47, 255}},
	} {
		got := at(tc.x, tc.y)
		assert.Equal(t, tc.want, got, "%s at (%v, %v): %v, want %v", tc.what, tc.x, tc.y, got, tc.want)
	}
	// robot1's trail starts at its spawn: a translucent blue over white,
	// two pixels wide.
	blue := 0
	for dy := -3; dy <= 3; dy++ {
		if got := at(-5.8, float64(dy)*0.05/3); got.B > 200 && got.R < 150 {
			blue++
		}
	}
	assert.GreaterOrEqual(t, blue, 2, "%d blue pixels across the trail near the spawn, want 2 or more", blue)
	err = sim.RenderPNG(io.Discard, w, sim.RenderOptions{Scale: 100})
	assert.EqualError(t, err, "render Scale 100: want 1 to 32 pixels per cell", "Scale 100: %v", err)
}

func TestRenderSVG(t *testing.T) {
	w := renderedWorld(t)
	var buf bytes.Buffer
	path := []sim.Pose{{X: -6, Y: 0}, {X: 0, Y: 0}, {X: 2.5, Y: 3.5}}
	err := sim.RenderSVG(&buf, w, sim.RenderOptions{Title: "a <test> & more",
		Goals: []sim.GoalMarker{{Robot: "robot2", Pose: sim.Pose{X: 2.5, Y: 3.5}}},
		Paths: []sim.PathMarker{{Robot: "robot2", Path: path}}})
	require.NoError(t, err)
	// Well-formed XML, with the elements the picture needs.
	counts := map[string]int{}
	var texts []string
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "SVG is not well-formed XML")
		switch e := tok.(type) {
		case xml.StartElement:
			counts[e.Name.Local]++
		case xml.CharData:
			if s := strings.TrimSpace(string(e)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	if assert.Equal(t, 1, counts["svg"], "element counts %v", counts) {
		assert.GreaterOrEqual(t, counts["rect"], 100, "element counts %v", counts)
		assert.GreaterOrEqual(t, counts["polyline"], 3, "element counts %v", counts)
		assert.GreaterOrEqual(t, counts["circle"], 8, "element counts %v", counts)
	}
	all := strings.Join(texts, "|")
	for _, want := range []string{"robot1", "robot2", "dock_west", "dock_lab", "kitchen", "a <test> & more  t=5.0s"} {
		assert.Contains(t, all, want, "no text %q in %s", want, all)
	}
	assert.Contains(t, buf.String(), `stroke-dasharray`, "the planned path is not dashed")
}
