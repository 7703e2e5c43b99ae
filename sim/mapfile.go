package sim

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/png" // map_server also reads PNG maps; accept them too.
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
)

// mapMeta is the content of a ROS map_server map YAML file.
type mapMeta struct {
	// Image is the path of the map image as written in the file; relative
	// paths are relative to the YAML file's directory.
	Image string
	// Resolution is the size of a pixel in metres.
	Resolution float64
	// Origin is the world pose of the bottom-left pixel's outer corner.
	Origin Pose
	// Negate swaps the meaning of black and white.
	Negate bool
	// OccupiedThresh and FreeThresh classify pixels: with p the darkness of
	// a pixel in [0, 1], p > OccupiedThresh is occupied, p < FreeThresh free,
	// anything between unknown (trinary) or free (scale).
	OccupiedThresh, FreeThresh float64
	// Mode is "trinary" (the default) or "scale".
	Mode string
}

var mapKeys = []string{"image", "resolution", "origin", "negate", "occupied_thresh", "free_thresh", "mode"}

// parseMapMeta parses a map_server YAML document; file names it in errors.
// Unknown keys are ignored as map_server ignores them, unless they look like a
// misspelt known key, which is an error naming the key meant.
func parseMapMeta(file string, data []byte) (mapMeta, error) {
	m := mapMeta{OccupiedThresh: 0.65, FreeThresh: 0.196, Mode: "trinary"}
	root, err := yamlMapping(file, data, input.Map)
	if err != nil {
		return m, err
	}
	seen := map[string]*yaml.Node{}
	for k := 0; k+1 < len(root.Content); k += 2 {
		key, val := root.Content[k], root.Content[k+1]
		if prev, dup := seen[key.Value]; dup {
			return m, nodeErr(file, key, key.Value, "given twice (first on line %d)", prev.Line)
		}
		seen[key.Value] = val
		switch key.Value {
		case "image":
			if val.Kind != yaml.ScalarNode || val.Value == "" || val.Tag == "!!null" {
				return m, nodeErr(file, val, "image", "want the image file's path, got %s", input.Describe(val))
			}
			m.Image = val.Value
		case "resolution":
			if m.Resolution, err = input.Number(file, "resolution", val); err != nil {
				return m, err
			}
			if m.Resolution <= 0 {
				return m, nodeErr(file, val, "resolution", "must be > 0 metres per pixel, got %s", val.Value)
			}
		case "origin":
			if m.Origin, err = places.DecodePose(file, "origin", val, false); err != nil {
				return m, err
			}
		case "negate":
			switch val.Value {
			case "0", "false":
				m.Negate = false
			case "1", "true":
				m.Negate = true
			default:
				return m, nodeErr(file, val, "negate", "want 0 or 1, got %s", input.Describe(val))
			}
		case "occupied_thresh", "free_thresh":
			v, err := input.Number(file, key.Value, val)
			if err != nil {
				return m, err
			}
			if v < 0 || v > 1 {
				return m, nodeErr(file, val, key.Value, "must be between 0 and 1, got %s", val.Value)
			}
			if key.Value == "occupied_thresh" {
				m.OccupiedThresh = v
			} else {
				m.FreeThresh = v
			}
		case "mode":
			switch val.Value {
			case "trinary", "scale":
				m.Mode = val.Value
			case "raw":
				return m, nodeErr(file, val, "mode", "raw is not supported; use trinary or scale")
			default:
				return m, nodeErr(file, val, "mode", "want trinary or scale, got %s", input.Describe(val))
			}
		default:
			if near := runtime.NearestNames(key.Value, mapKeys, 1); len(near) > 0 {
				return m, nodeErr(file, key, key.Value, "unknown key; did you mean %s?", near[0])
			}
		}
	}
	for _, k := range []string{"image", "resolution", "origin"} {
		if _, ok := seen[k]; !ok {
			return m, fileErr(runtime.Pos{File: file}, k, "missing (a map_server map needs image, resolution and origin)")
		}
	}
	if m.FreeThresh >= m.OccupiedThresh {
		at := runtime.Pos{File: file}
		if n := seen["free_thresh"]; n != nil {
			at = input.Pos(file, n)
		}
		return m, fileErr(at, "free_thresh", "%v must be below occupied_thresh %v", m.FreeThresh, m.OccupiedThresh)
	}
	return m, nil
}

// LoadMap loads a map in ROS map_server format: the YAML file at path and
// the PGM (P5 or P2) or PNG image it names. Errors name the file and line.
// Both files must be regular files, of at most input.MaxDocumentSize and
// input.MaxImageSize bytes, and the image at most maxMapPixels pixels.
func LoadMap(path string) (*Grid, error) {
	data, err := input.ReadFile(path, input.Map)
	if err != nil {
		return nil, err
	}
	meta, err := parseMapMeta(path, data)
	if err != nil {
		return nil, err
	}
	img := meta.Image
	if !filepath.IsAbs(img) {
		img = filepath.Join(filepath.Dir(path), img)
	}
	raw, err := input.ReadFile(img, input.MapImage)
	if err != nil {
		at := runtime.Pos{File: path}
		if root, e := yamlMapping(path, data, input.Map); e == nil {
			for k := 0; k+1 < len(root.Content); k += 2 {
				if root.Content[k].Value == "image" {
					at = input.Pos(path, root.Content[k+1])
				}
			}
		}
		return nil, fileErr(at, "image", "%s", fileProblem(err))
	}
	pix, err := decodeMapImage(img, raw)
	if err != nil {
		return nil, err
	}
	return meta.grid(pix)
}

// The bounds of a map image, checked from its header before its pixels are
// made: a side of 32768 pixels (1.6 km at 5 cm), and 2^26 pixels in all
// (8192×8192, 400 m square at 5 cm), so that a header claiming more is
// refused at once instead of exhausting memory.
const (
	maxMapSide   = 1 << 15
	maxMapPixels = 1 << 26
)

// checkPixels refuses an image of more than maxMapSide pixels a side or
// maxMapPixels in all.
func checkPixels(at runtime.Pos, w, h int) error {
	if w > maxMapSide || h > maxMapSide || w*h > maxMapPixels {
		return fileErr(at, "size", "%dx%d pixels is more than a map may have: at most %d a side and %d (%dx%d) in all", w, h, maxMapSide, maxMapPixels, 1<<13, 1<<13)
	}
	return nil
}

// fileErr is a problem in a map, image or places file: at its position
// (file:line:col, or only the file when the problem is not on one line: a
// missing field, a short image), in field when there is one.
func fileErr(at runtime.Pos, field, format string, args ...any) error {
	return &runtime.BuildError{Pos: at, Path: field, Msg: fmt.Sprintf(format, args...)}
}

// fileProblem says why a file named in another could not be read: "path:
// why", without the operation ("open", "stat") the system names.
func fileProblem(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// nodeErr is a problem at node n of the YAML file.
func nodeErr(file string, n *yaml.Node, field, format string, args ...any) error {
	return fileErr(input.Pos(file, n), field, format, args...)
}

// yamlMapping returns the top-level mapping of a YAML document of kind k
// (bounded in size), or an error if the document is empty or not a mapping.
func yamlMapping(file string, data []byte, k input.Kind) (*yaml.Node, error) {
	if err := k.CheckSize(file, data); err != nil {
		return nil, err
	}
	root, err := input.YAML(file, data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, fileErr(runtime.Pos{File: file}, "", "empty document")
	}
	if root.Kind != yaml.MappingNode {
		return nil, nodeErr(file, root, "", "want a mapping of keys to values, got %s", input.Describe(root))
	}
	return root, nil
}

// mapImage is a decoded map image: 8-bit grey levels (0 black, 255 white)
// and, for images with transparency, alpha; rows top first.
type mapImage struct {
	Width, Height int
	Gray          []uint8
	Alpha         []uint8 // nil when the image is opaque
}

// grid classifies the pixels of img as map_server does and returns the grid,
// flipping rows so that the image's bottom row becomes row 0.
func (m mapMeta) grid(img *mapImage) (*Grid, error) {
	g, err := NewGrid(img.Width, img.Height, m.Resolution, m.Origin)
	if err != nil {
		return nil, err
	}
	for r := 0; r < img.Height; r++ {
		j := img.Height - 1 - r
		for i := 0; i < img.Width; i++ {
			k := r*img.Width + i
			v := float64(img.Gray[k])
			if m.Negate {
				v = 255 - v
			}
			p := (255 - v) / 255
			c := Unknown
			switch {
			case img.Alpha != nil && img.Alpha[k] < 255:
			case p > m.OccupiedThresh:
				c = Occupied
			case p < m.FreeThresh || m.Mode == "scale":
				c = Free
			}
			g.cells[j*g.Width+i] = c
		}
	}
	return g, nil
}

// decodeMapImage decodes a PGM (P5 binary or P2 ASCII, any maxval) or PNG
// image; file names it in errors, which give the line for PGM headers and
// ASCII samples.
func decodeMapImage(file string, data []byte) (*mapImage, error) {
	if len(data) >= 2 && data[0] == 'P' {
		return decodePGM(file, data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fileErr(runtime.Pos{File: file}, "", "not a PGM (P5 or P2) or PNG image: %v", err)
	}
	if err := checkPixels(runtime.Pos{File: file}, cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	im, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fileErr(runtime.Pos{File: file}, "", "not a PGM (P5 or P2) or PNG image: %v", err)
	}
	b := im.Bounds()
	out := &mapImage{Width: b.Dx(), Height: b.Dy(), Gray: make([]uint8, b.Dx()*b.Dy())}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := im.At(x, y).RGBA()
			k := (y-b.Min.Y)*out.Width + (x - b.Min.X)
			if a != 0xffff {
				if out.Alpha == nil {
					out.Alpha = make([]uint8, len(out.Gray))
					for i := range out.Alpha {
						out.Alpha[i] = 255
					}
				}
				out.Alpha[k] = uint8(a >> 8)
				if a != 0 { // un-premultiply
					r, g, bl = r*0xffff/a, g*0xffff/a, bl*0xffff/a
				}
			}
			out.Gray[k] = uint8((r>>8 + g>>8 + bl>>8) / 3)
		}
	}
	return out, nil
}

// pgmReader tokenises a PGM header or ASCII raster, tracking lines.
type pgmReader struct {
	file      string
	data      []byte
	pos       int
	line      int
	lineStart int // offset of the current line's first byte
}

// at returns the position of byte off, on the current line.
func (p *pgmReader) at(off int) runtime.Pos {
	return runtime.PosAt(p.file, p.line, 1+off-p.lineStart)
}

func (p *pgmReader) skipSpace() {
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '#':
			for p.pos < len(p.data) && p.data[p.pos] != '\n' {
				p.pos++
			}
		case c == '\n':
			p.line++
			p.pos++
			p.lineStart = p.pos
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			p.pos++
		default:
			return
		}
	}
}

// uint reads a decimal number named field, no larger than limit.
func (p *pgmReader) uint(field string, limit int) (int, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] > ' ' && p.data[p.pos] != '#' {
		p.pos++
	}
	tok := string(p.data[start:p.pos])
	if tok == "" {
		return 0, fileErr(p.at(start), field, "missing: file ends early")
	}
	v, err := strconv.Atoi(tok)
	if err != nil || v < 0 {
		return 0, fileErr(p.at(start), field, "want a whole number, got %q", tok)
	}
	if v > limit {
		return 0, fileErr(p.at(start), field, "%d is too large (at most %d)", v, limit)
	}
	return v, nil
}

func decodePGM(file string, data []byte) (*mapImage, error) {
	p := &pgmReader{file: file, data: data, line: 1}
	magic := string(data[:2])
	if magic != "P5" && magic != "P2" {
		return nil, fileErr(p.at(0), "magic", "%q is not a greyscale PGM; want P5 (binary) or P2 (ASCII)", magic)
	}
	p.pos = 2
	if p.pos < len(data) && data[p.pos] > ' ' && data[p.pos] != '#' {
		return nil, fileErr(p.at(2), "magic", "want whitespace after %s", magic)
	}
	p.skipSpace()
	sizeAt := p.at(p.pos)
	w, err := p.uint("width", maxMapSide)
	if err != nil {
		return nil, err
	}
	h, err := p.uint("height", maxMapSide)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	maxvalAt := p.at(p.pos)
	maxval, err := p.uint("maxval", 65535)
	if err != nil {
		return nil, err
	}
	if w == 0 || h == 0 {
		return nil, fileErr(sizeAt, "size", "%dx%d has no pixels", w, h)
	}
	if maxval == 0 {
		return nil, fileErr(maxvalAt, "maxval", "must be between 1 and 65535, got 0")
	}
	if err := checkPixels(sizeAt, w, h); err != nil {
		return nil, err
	}
	// The raster must be there before the image is made: a header may
	// claim any size.
	bps := 1
	if maxval > 255 {
		bps = 2
	}
	if magic == "P2" {
		// Every ASCII sample takes a byte at least.
		if rest := len(data) - p.pos; rest < w*h {
			return nil, fileErr(runtime.Pos{File: file}, "raster", "has %d bytes, too few for %d pixels (%dx%d)", max(rest, 0), w*h, w, h)
		}
	} else if raster := len(data) - p.pos - 1; raster < w*h*bps {
		if raster < 0 {
			return nil, fileErr(runtime.Pos{File: file}, "raster", "missing: file ends after the header")
		}
		return nil, fileErr(runtime.Pos{File: file}, "raster", "has %d bytes, want %d (%dx%d, %d byte(s) per pixel)", raster, w*h*bps, w, h, bps)
	}
	img := &mapImage{Width: w, Height: h, Gray: make([]uint8, w*h)}
	scale := func(v int) uint8 { return uint8((v*255 + maxval/2) / maxval) }
	if magic == "P2" {
		for k := range img.Gray {
			v, err := p.uint(fmt.Sprintf("pixel %d", k), 1<<31)
			if err != nil {
				if be, ok := err.(*runtime.BuildError); ok && strings.HasPrefix(be.Msg, "missing") {
					return nil, fileErr(runtime.Pos{File: file}, "raster", "has %d pixels, want %d (%dx%d)", k, w*h, w, h)
				}
				return nil, err
			}
			if v > maxval {
				return nil, fileErr(p.at(p.pos-len(strconv.Itoa(v))), fmt.Sprintf("pixel %d", k), "%d is above maxval %d", v, maxval)
			}
			img.Gray[k] = scale(v)
		}
		return img, nil
	}
	// P5: exactly one whitespace byte separates maxval from the raster
	// (its length was checked above).
	p.pos++
	raster := data[p.pos:]
	for k := range img.Gray {
		v := int(raster[k*bps])
		if bps == 2 {
			v = v<<8 | int(raster[k*bps+1])
		}
		if v > maxval {
			return nil, fileErr(runtime.Pos{File: file}, fmt.Sprintf("pixel %d", k), "%d is above maxval %d", v, maxval)
		}
		img.Gray[k] = scale(v)
	}
	return img, nil
}

// Map image grey levels written by EncodePGM, the ones map_saver writes.
const (
	pgmOccupied = 0
	pgmFree     = 254
	pgmUnknown  = 205
)

// EncodePGM writes the grid as a binary (P5) PGM with map_saver's grey
// levels (occupied 0, free 254, unknown 205), top row first.
func EncodePGM(w io.Writer, g *Grid) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "P5\n# btrobot map, %.3f m/cell\n%d %d\n255\n", g.Resolution, g.Width, g.Height)
	row := make([]byte, g.Width)
	for j := g.Height - 1; j >= 0; j-- {
		for i := 0; i < g.Width; i++ {
			switch g.cells[j*g.Width+i] {
			case Occupied:
				row[i] = pgmOccupied
			case Unknown:
				row[i] = pgmUnknown
			default:
				row[i] = pgmFree
			}
		}
		buf.Write(row)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// EncodeMapYAML writes map_server YAML for a grid whose image is imageName,
// with map_saver's thresholds, so that LoadMap reads back the same grid.
func EncodeMapYAML(w io.Writer, g *Grid, imageName string) error {
	_, err := fmt.Fprintf(w, "image: %s\nresolution: %g\norigin: [%g, %g, %g]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\nmode: trinary\n",
		imageName, g.Resolution, g.Origin.X, g.Origin.Y, g.Origin.Yaw)
	return err
}
