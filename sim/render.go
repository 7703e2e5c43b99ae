package sim

import (
	"bufio"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
)

// RenderOptions choose what a rendering shows beyond the map, the placed
// obstacles, the named places and the robots (drawn at their true poses).
type RenderOptions struct {
	// Scale is the number of pixels per map cell [2].
	Scale int
	// Title is written in the top-left corner with the simulation time.
	Title string
	// Goals and Paths are drawn in the colour of the robot they belong to.
	Goals []GoalMarker
	Paths []PathMarker
	// Marks are points to call out (where faults struck, in hil's
	// reports): a red cross, labelled.
	Marks []Mark
	// NoTrails leaves out the robots' trajectories; NoPlaces the waypoints,
	// docks and spawn poses.
	NoTrails, NoPlaces bool
}

// GoalMarker is a navigation goal to draw.
type GoalMarker struct {
	Robot string
	Pose  Pose
}

// Mark is a labelled point, in map coordinates.
type Mark struct {
	X, Y  float64
	Label string
}

// PathMarker is a planned path to draw.
type PathMarker struct {
	Robot string
	Path  []Pose
}

var (
	colFree     = color.RGBA{255, 255, 255, 255}
	colWall     = color.RGBA{45, 45, 50, 255}
	colUnknown  = color.RGBA{205, 205, 210, 255}
	colObstacle = color.RGBA{235, 130, 20, 255}
	colDock     = color.RGBA{20, 150, 60, 255}
	colWaypoint = color.RGBA{60, 90, 200, 255}
	colSpawn    = color.RGBA{130, 130, 140, 255}
	colText     = color.RGBA{20, 20, 25, 255}
	colMark     = color.RGBA{210, 0, 0, 255}
	colWhite    = color.RGBA{255, 255, 255, 255}
	robotColors = []color.RGBA{
		{30, 110, 230, 255}, {220, 50, 47, 255}, {150, 60, 190, 255}, {0, 150, 150, 255},
		{200, 120, 0, 255}, {110, 140, 20, 255}, {210, 60, 150, 255}, {90, 90, 90, 255},
	}
)

func robotColor(k int) color.RGBA { return robotColors[k%len(robotColors)] }

// canvas is a drawing surface in pixel coordinates (y down).
type canvas interface {
	cells(g *Grid, scale int)
	box(x0, y0, x1, y1 float64, fill color.RGBA)
	polyline(pts [][2]float64, c color.RGBA, width float64, dashed bool)
	circle(x, y, r float64, fill color.RGBA, stroke color.RGBA, strokeW float64)
	text(x, y float64, s string, c color.RGBA, size int)
}

// scene draws a world on a canvas.
type scene struct {
	w     *World
	opt   RenderOptions
	scale float64 // pixels per metre
	g     *Grid

	marks  []box // pixels taken by markers and placed labels
	labels []pendingLabel
}

type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// pendingLabel is a label to place once every marker is drawn.
type pendingLabel struct {
	x, y, gap float64
	text      string
	col       color.RGBA
}

func newScene(w *World, opt RenderOptions) (*scene, error) {
	if opt.Scale == 0 {
		opt.Scale = 2
	}
	if opt.Scale < 1 || opt.Scale > 32 {
		return nil, fmt.Errorf("render Scale %d: want 1 to 32 pixels per cell", opt.Scale)
	}
	g, _ := w.Occupancy()
	return &scene{w: w, opt: opt, scale: float64(opt.Scale) / g.Resolution, g: g}, nil
}

func (s *scene) size() (int, int) { return s.g.Width * s.opt.Scale, s.g.Height * s.opt.Scale }

// px converts world coordinates to pixels.
func (s *scene) px(x, y float64) (float64, float64) {
	gx, gy := s.g.toGrid(x, y)
	sc := float64(s.opt.Scale)
	return gx * sc, (float64(s.g.Height) - gy) * sc
}

func (s *scene) robotIndex(name string) int {
	for k, r := range s.w.robots {
		if r.conf.Name == name {
			return k
		}
	}
	return len(s.w.robots)
}

// heading returns the pixel end of a line of length l metres from p along
// its yaw.
func (s *scene) heading(p Pose, l float64) (float64, float64) {
	return s.px(p.X+l*math.Cos(p.Yaw), p.Y+l*math.Sin(p.Yaw))
}

func (s *scene) draw(c canvas) {
	c.cells(s.g, s.opt.Scale)
	for _, o := range s.w.obstacles {
		x0, y0 := s.px(o.Rect.MinX, o.Rect.MaxY)
		x1, y1 := s.px(o.Rect.MaxX, o.Rect.MinY)
		c.box(math.Min(x0, x1), math.Min(y0, y1), math.Max(x0, x1), math.Max(y0, y1), colObstacle)
	}
	if !s.opt.NoTrails {
		for k, r := range s.w.robots {
			c.polyline(s.points(r.trail), fade(robotColor(k), 170), 2, false)
		}
	}
	for _, p := range s.opt.Paths {
		c.polyline(s.points(p.Path), robotColor(s.robotIndex(p.Robot)), 1.5, true)
	}
	// Markers first, remembering where they are; labels last, placed where
	// they hide neither a marker nor another label. Robots' labels are
	// placed first: they matter most.
	for k, r := range s.w.robots {
		x, y := s.px(r.pose.X, r.pose.Y)
		rad := math.Max(3, r.conf.Radius*s.scale)
		s.mark(x, y, rad)
		s.labels = append(s.labels, pendingLabel{x, y, rad + 3, r.conf.Name, robotColor(k)})
	}
	if !s.opt.NoPlaces {
		pl := s.w.conf.Places
		for _, sp := range pl.Spawns {
			x, y := s.px(sp.Pose.X, sp.Pose.Y)
			c.circle(x, y, 3, colWhite, colSpawn, 1.5)
		}
		for _, d := range s.w.docks {
			ax, ay := s.px(d.Approach.X, d.Approach.Y)
			dx, dy := s.px(d.Pose.X, d.Pose.Y)
			c.polyline([][2]float64{{ax, ay}, {dx, dy}}, colDock, 1.5, true)
			hx, hy := s.heading(d.Pose, 0.25)
			c.polyline([][2]float64{{dx, dy}, {hx, hy}}, colDock, 3, false)
			c.box(dx-4, dy-4, dx+4, dy+4, colDock)
			s.mark(dx, dy, 5)
			s.labels = append(s.labels, pendingLabel{dx, dy, 7, d.Name, colDock})
		}
		for _, wp := range pl.Waypoints {
			x, y := s.px(wp.Pose.X, wp.Pose.Y)
			c.circle(x, y, 4, colWhite, colWaypoint, 2)
			s.mark(x, y, 5)
			s.labels = append(s.labels, pendingLabel{x, y, 7, wp.Name, colWaypoint})
		}
	}
	for _, gm := range s.opt.Goals {
		col := robotColor(s.robotIndex(gm.Robot))
		x, y := s.px(gm.Pose.X, gm.Pose.Y)
		c.circle(x, y, 7, colWhite, col, 2)
		c.circle(x, y, 2.5, col, col, 0)
		hx, hy := s.heading(gm.Pose, 0.4)
		c.polyline([][2]float64{{x, y}, {hx, hy}}, col, 2, false)
		s.mark(x, y, 7)
	}
	for _, m := range s.opt.Marks {
		x, y := s.px(m.X, m.Y)
		c.polyline([][2]float64{{x - 5, y - 5}, {x + 5, y + 5}}, colMark, 3, false)
		c.polyline([][2]float64{{x - 5, y + 5}, {x + 5, y - 5}}, colMark, 3, false)
		s.mark(x, y, 6)
		if m.Label != "" {
			s.labels = append(s.labels, pendingLabel{x, y, 8, m.Label, colMark})
		}
	}
	for k, r := range s.w.robots {
		x, y := s.px(r.pose.X, r.pose.Y)
		rad := math.Max(3, r.conf.Radius*s.scale)
		c.circle(x, y, rad, robotColor(k), colText, 1)
		hx, hy := s.heading(r.pose, r.conf.Radius)
		c.polyline([][2]float64{{x, y}, {hx, hy}}, colWhite, 2, false)
	}
	title := fmt.Sprintf("t=%.1fs", s.w.now.Seconds())
	if s.opt.Title != "" {
		title = s.opt.Title + "  " + title
	}
	c.text(6, 6, title, colText, labelSize)
	s.marks = append(s.marks, box{0, 0, 10 + float64(len(title)*4*labelSize), 8 + 6*labelSize})
	for _, l := range s.labels {
		s.label(c, l)
	}
}

const labelSize = 2 // font scale: 3x5 glyphs drawn at 6x10 pixels

// mark records a marker of radius r at (x, y) for label placement.
func (s *scene) mark(x, y, r float64) {
	s.marks = append(s.marks, box{x - r, y - r, x + r, y + r})
}

// label writes a label beside its marker: to the right, left, above or
// below, or at a corner, near first and further out after, at the first spot
// that stays on the image and clear of markers and labels already placed
// (or else at the first spot on the image).
func (s *scene) label(c canvas, l pendingLabel) {
	wd, ht := s.size()
	w := float64(len(l.text) * 4 * labelSize)
	h := float64(5 * labelSize)
	pick, clear := [2]float64{l.x + l.gap, l.y - h/2}, false
	onImage := false
	for ring := 0.0; ring < 3 && !clear; ring++ {
		g := l.gap + ring*(h+2)
		for _, p := range [][2]float64{
			{l.x + g, l.y - h/2}, {l.x - g - w, l.y - h/2},
			{l.x - w/2, l.y - g - h}, {l.x - w/2, l.y + g},
			{l.x + g, l.y - g - h}, {l.x + g, l.y + g},
			{l.x - g - w, l.y - g - h}, {l.x - g - w, l.y + g},
		} {
			b := box{p[0] - 1, p[1] - 1, p[0] + w + 1, p[1] + h + 1}
			if b.x0 < 0 || b.y0 < 0 || b.x1 > float64(wd) || b.y1 > float64(ht) {
				continue
			}
			if !onImage {
				pick, onImage = p, true
			}
			if !slices.ContainsFunc(s.marks, b.overlaps) {
				pick, clear = p, true
				break
			}
		}
	}
	s.marks = append(s.marks, box{pick[0] - 1, pick[1] - 1, pick[0] + w + 1, pick[1] + h + 1})
	c.text(pick[0], pick[1], l.text, l.col, labelSize)
}

func (s *scene) points(poses []Pose) [][2]float64 {
	out := make([][2]float64, len(poses))
	for k, p := range poses {
		out[k][0], out[k][1] = s.px(p.X, p.Y)
	}
	return out
}

func fade(c color.RGBA, a uint8) color.RGBA { c.A = a; return c }

// RenderPNG draws the world (map, obstacles, places, trails, goals, paths,
// robots) as a PNG image.
func RenderPNG(out io.Writer, w *World, opt RenderOptions) error {
	s, err := newScene(w, opt)
	if err != nil {
		return err
	}
	wd, ht := s.size()
	r := &raster{img: image.NewRGBA(image.Rect(0, 0, wd, ht))}
	s.draw(r)
	return png.Encode(out, r.img)
}

// RenderSVG draws the same picture as RenderPNG as an SVG document, with
// the map as rectangles and the labels as text.
func RenderSVG(out io.Writer, w *World, opt RenderOptions) error {
	s, err := newScene(w, opt)
	if err != nil {
		return err
	}
	wd, ht := s.size()
	bw := bufio.NewWriter(out)
	fmt.Fprintf(bw, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n", wd, ht, wd, ht)
	s.draw(&svgCanvas{w: bw})
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// raster draws on an RGBA image.
type raster struct{ img *image.RGBA }

func (r *raster) cells(g *Grid, scale int) {
	for j := 0; j < g.Height; j++ {
		for i := 0; i < g.Width; i++ {
			col := colFree
			switch g.cells[j*g.Width+i] {
			case Occupied:
				col = colWall
			case Unknown:
				col = colUnknown
			}
			y0 := (g.Height - 1 - j) * scale
			for y := y0; y < y0+scale; y++ {
				for x := i * scale; x < (i+1)*scale; x++ {
					r.img.SetRGBA(x, y, col)
				}
			}
		}
	}
}

func (r *raster) blend(x, y int, c color.RGBA) {
	if !(image.Point{x, y}.In(r.img.Rect)) {
		return
	}
	if c.A == 255 {
		r.img.SetRGBA(x, y, c)
		return
	}
	d := r.img.RGBAAt(x, y)
	a := uint32(c.A)
	mix := func(s, t uint8) uint8 { return uint8((uint32(s)*a + uint32(t)*(255-a)) / 255) }
	r.img.SetRGBA(x, y, color.RGBA{mix(c.R, d.R), mix(c.G, d.G), mix(c.B, d.B), 255})
}

func (r *raster) box(x0, y0, x1, y1 float64, fill color.RGBA) {
	for y := int(math.Round(y0)); y < int(math.Round(y1)); y++ {
		for x := int(math.Round(x0)); x < int(math.Round(x1)); x++ {
			r.blend(x, y, fill)
		}
	}
}

// disc fills the pixels whose centres are within rad of (x, y); set marks
// pixels already painted by the same stroke so translucent strokes do not
// darken where their dabs overlap.
func (r *raster) disc(x, y, rad float64, c color.RGBA, set map[image.Point]bool) {
	for py := int(math.Floor(y - rad)); py <= int(math.Ceil(y+rad)); py++ {
		for px := int(math.Floor(x - rad)); px <= int(math.Ceil(x+rad)); px++ {
			dx, dy := float64(px)+0.5-x, float64(py)+0.5-y
			if dx*dx+dy*dy > rad*rad {
				continue
			}
			p := image.Point{px, py}
			if set != nil {
				if set[p] {
					continue
				}
				set[p] = true
			}
			r.blend(px, py, c)
		}
	}
}

func (r *raster) polyline(pts [][2]float64, c color.RGBA, width float64, dashed bool) {
	set := map[image.Point]bool{}
	rad := math.Max(width/2, 0.6)
	run := 0.0
	for k := 0; k+1 < len(pts); k++ {
		x0, y0, x1, y1 := pts[k][0], pts[k][1], pts[k+1][0], pts[k+1][1]
		l := math.Hypot(x1-x0, y1-y0)
		n := int(math.Ceil(l/0.5)) + 1
		for t := 0; t <= n; t++ {
			f := float64(t) / float64(n)
			if dashed && int((run+f*l)/6)%2 == 1 {
				continue
			}
			r.disc(x0+f*(x1-x0), y0+f*(y1-y0), rad, c, set)
		}
		run += l
	}
}

func (r *raster) circle(x, y, rad float64, fill, stroke color.RGBA, strokeW float64) {
	r.disc(x, y, rad, stroke, nil)
	if strokeW < rad {
		r.disc(x, y, rad-strokeW, fill, nil)
	}
}

func (r *raster) text(x, y float64, s string, c color.RGBA, size int) {
	s = strings.ToUpper(s)
	adv := 4 * size
	// A white backing keeps labels readable on walls and trails.
	r.box(x-float64(size), y-float64(size), x+float64(len(s)*adv), y+float64(6*size), fade(colWhite, 200))
	for k, ch := range s {
		g, ok := glyph(ch)
		if !ok {
			continue
		}
		for row := 0; row < 5; row++ {
			for col := 0; col < 3; col++ {
				if g[row][col] != '#' {
					continue
				}
				for dy := 0; dy < size; dy++ {
					for dx := 0; dx < size; dx++ {
						r.blend(int(x)+k*adv+col*size+dx, int(y)+row*size+dy, c)
					}
				}
			}
		}
	}
}

// svgCanvas writes SVG elements.
type svgCanvas struct{ w io.Writer }

func svgColor(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

func svgOpacity(c color.RGBA) string {
	if c.A == 255 {
		return ""
	}
	return fmt.Sprintf(" opacity=\"%.2f\"", float64(c.A)/255)
}

func (v *svgCanvas) cells(g *Grid, scale int) {
	fmt.Fprintf(v.w, "<rect width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", g.Width*scale, g.Height*scale, svgColor(colFree))
	for _, kind := range []struct {
		c   Cell
		col color.RGBA
	}{{Unknown, colUnknown}, {Occupied, colWall}} {
		fmt.Fprintf(v.w, "<g fill=\"%s\">\n", svgColor(kind.col))
		for j := 0; j < g.Height; j++ {
			y := (g.Height - 1 - j) * scale
			for i := 0; i < g.Width; {
				if g.cells[j*g.Width+i] != kind.c {
					i++
					continue
				}
				start := i
				for i < g.Width && g.cells[j*g.Width+i] == kind.c {
					i++
				}
				fmt.Fprintf(v.w, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", start*scale, y, (i-start)*scale, scale)
			}
		}
		fmt.Fprintln(v.w, "</g>")
	}
}

func (v *svgCanvas) box(x0, y0, x1, y1 float64, fill color.RGBA) {
	fmt.Fprintf(v.w, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s/>\n", x0, y0, x1-x0, y1-y0, svgColor(fill), svgOpacity(fill))
}

func (v *svgCanvas) polyline(pts [][2]float64, c color.RGBA, width float64, dashed bool) {
	if len(pts) < 2 {
		return
	}
	var b strings.Builder
	for k, p := range pts {
		if k > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", p[0], p[1])
	}
	dash := ""
	if dashed {
		dash = " stroke-dasharray=\"6 6\""
	}
	fmt.Fprintf(v.w, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-linejoin=\"round\" stroke-linecap=\"round\"%s%s/>\n",
		b.String(), svgColor(c), width, dash, svgOpacity(c))
}

func (v *svgCanvas) circle(x, y, r float64, fill, stroke color.RGBA, strokeW float64) {
	fmt.Fprintf(v.w, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"", x, y, r-strokeW/2, svgColor(fill))
	if strokeW > 0 {
		fmt.Fprintf(v.w, " stroke=\"%s\" stroke-width=\"%.1f\"", svgColor(stroke), strokeW)
	}
	fmt.Fprintln(v.w, "/>")
}

func (v *svgCanvas) text(x, y float64, s string, c color.RGBA, size int) {
	fmt.Fprintf(v.w, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">%s</text>\n",
		x, y+float64(5*size), 6*size, svgColor(c), html.EscapeString(s))
}
