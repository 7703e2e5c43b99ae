package sim

import (
	"bytes"
	"fmt"
	"image"
	_ "image/png" // map_server also reads PNG maps; accept them too.
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MapMeta is the content of a ROS map_server map YAML file.
type MapMeta struct {
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

// ParseMapMeta parses a map_server YAML document; file names it in errors.
// Unknown keys are ignored as map_server ignores them, unless they look like a
// misspelt known key, which is an error naming the key meant.
func ParseMapMeta(file string, data []byte) (MapMeta, error) {
	m := MapMeta{OccupiedThresh: 0.65, FreeThresh: 0.196, Mode: "trinary"}
	root, err := yamlMapping(file, data)
	if err != nil {
		return m, err
	}
	seen := map[string]int{}
	for k := 0; k+1 < len(root.Content); k += 2 {
		key, val := root.Content[k], root.Content[k+1]
		if prev, dup := seen[key.Value]; dup {
			return m, fileErr(file, key.Line, key.Value, "given twice (first on line %d)", prev)
		}
		seen[key.Value] = key.Line
		switch key.Value {
		case "image":
			if val.Kind != yaml.ScalarNode || val.Value == "" || val.Tag == "!!null" {
				return m, fileErr(file, val.Line, "image", "want the image file's path, got %s", nodeKind(val))
			}
			m.Image = val.Value
		case "resolution":
			if m.Resolution, err = yamlNumber(file, "resolution", val); err != nil {
				return m, err
			}
			if m.Resolution <= 0 {
				return m, fileErr(file, val.Line, "resolution", "must be > 0 metres per pixel, got %s", val.Value)
			}
		case "origin":
			if m.Origin, err = yamlPose(file, "origin", val, false); err != nil {
				return m, err
			}
		case "negate":
			switch val.Value {
			case "0", "false":
				m.Negate = false
			case "1", "true":
				m.Negate = true
			default:
				return m, fileErr(file, val.Line, "negate", "want 0 or 1, got %s", nodeKind(val))
			}
		case "occupied_thresh", "free_thresh":
			v, err := yamlNumber(file, key.Value, val)
			if err != nil {
				return m, err
			}
			if v < 0 || v > 1 {
				return m, fileErr(file, val.Line, key.Value, "must be between 0 and 1, got %s", val.Value)
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
				return m, fileErr(file, val.Line, "mode", "raw is not supported; use trinary or scale")
			default:
				return m, fileErr(file, val.Line, "mode", "want trinary or scale, got %s", nodeKind(val))
			}
		default:
			if s := suggestKey(key.Value, mapKeys); s != "" {
				return m, fileErr(file, key.Line, key.Value, "unknown key; did you mean %s?", s)
			}
		}
	}
	for _, k := range []string{"image", "resolution", "origin"} {
		if _, ok := seen[k]; !ok {
			return m, fileErr(file, 0, k, "missing (a map_server map needs image, resolution and origin)")
		}
	}
	if m.FreeThresh >= m.OccupiedThresh {
		return m, fileErr(file, seen["free_thresh"], "free_thresh", "%v must be below occupied_thresh %v", m.FreeThresh, m.OccupiedThresh)
	}
	return m, nil
}

// LoadMap loads a map in ROS map_server format: the YAML file at path and
// the PGM (P5 or P2) or PNG image it names. Errors name the file and line.
func LoadMap(path string) (*Grid, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	meta, err := ParseMapMeta(path, data)
	if err != nil {
		return nil, err
	}
	img := meta.Image
	if !filepath.IsAbs(img) {
		img = filepath.Join(filepath.Dir(path), img)
	}
	raw, err := os.ReadFile(img)
	if err != nil {
		line := 0
		if root, e := yamlMapping(path, data); e == nil {
			for k := 0; k+1 < len(root.Content); k += 2 {
				if root.Content[k].Value == "image" {
					line = root.Content[k+1].Line
				}
			}
		}
		return nil, fileErr(path, line, "image", "%v", err)
	}
	pix, err := DecodeMapImage(img, raw)
	if err != nil {
		return nil, err
	}
	return meta.Grid(pix)
}

// MapImage is a decoded map image: 8-bit grey levels (0 black, 255 white)
// and, for images with transparency, alpha; rows top first.
type MapImage struct {
	Width, Height int
	Gray          []uint8
	Alpha         []uint8 // nil when the image is opaque
}

// Grid classifies the pixels of img as map_server does and returns the grid,
// flipping rows so that the image's bottom row becomes row 0.
func (m MapMeta) Grid(img *MapImage) (*Grid, error) {
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

// DecodeMapImage decodes a PGM (P5 binary or P2 ASCII, any maxval) or PNG
// image; file names it in errors, which give the line for PGM headers and
// ASCII samples.
func DecodeMapImage(file string, data []byte) (*MapImage, error) {
	if len(data) >= 2 && data[0] == 'P' {
		return decodePGM(file, data)
	}
	im, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fileErr(file, 0, "", "not a PGM (P5 or P2) or PNG image: %v", err)
	}
	b := im.Bounds()
	out := &MapImage{Width: b.Dx(), Height: b.Dy(), Gray: make([]uint8, b.Dx()*b.Dy())}
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
	file string
	data []byte
	pos  int
	line int
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
		return 0, fileErr(p.file, p.line, field, "missing: file ends early")
	}
	v, err := strconv.Atoi(tok)
	if err != nil || v < 0 {
		return 0, fileErr(p.file, p.line, field, "want a whole number, got %q", tok)
	}
	if v > limit {
		return 0, fileErr(p.file, p.line, field, "%d is too large (at most %d)", v, limit)
	}
	return v, nil
}

func decodePGM(file string, data []byte) (*MapImage, error) {
	p := &pgmReader{file: file, data: data, line: 1}
	magic := string(data[:2])
	if magic != "P5" && magic != "P2" {
		return nil, fileErr(file, 1, "magic", "%q is not a greyscale PGM; want P5 (binary) or P2 (ASCII)", magic)
	}
	p.pos = 2
	if p.pos < len(data) && data[p.pos] > ' ' && data[p.pos] != '#' {
		return nil, fileErr(file, 1, "magic", "want whitespace after %s", magic)
	}
	w, err := p.uint("width", 1<<15)
	if err != nil {
		return nil, err
	}
	h, err := p.uint("height", 1<<15)
	if err != nil {
		return nil, err
	}
	maxval, err := p.uint("maxval", 65535)
	if err != nil {
		return nil, err
	}
	if w == 0 || h == 0 {
		return nil, fileErr(file, p.line, "size", "%dx%d has no pixels", w, h)
	}
	if maxval == 0 {
		return nil, fileErr(file, p.line, "maxval", "must be between 1 and 65535, got 0")
	}
	img := &MapImage{Width: w, Height: h, Gray: make([]uint8, w*h)}
	scale := func(v int) uint8 { return uint8((v*255 + maxval/2) / maxval) }
	if magic == "P2" {
		for k := range img.Gray {
			v, err := p.uint(fmt.Sprintf("pixel %d", k), 1<<31)
			if err != nil {
				if fe, ok := err.(*FileError); ok && strings.HasPrefix(fe.Msg, "missing") {
					return nil, fileErr(file, 0, "raster", "has %d pixels, want %d (%dx%d)", k, w*h, w, h)
				}
				return nil, err
			}
			if v > maxval {
				return nil, fileErr(file, p.line, fmt.Sprintf("pixel %d", k), "%d is above maxval %d", v, maxval)
			}
			img.Gray[k] = scale(v)
		}
		return img, nil
	}
	// P5: exactly one whitespace byte separates maxval from the raster.
	if p.pos >= len(data) {
		return nil, fileErr(file, 0, "raster", "missing: file ends after the header")
	}
	p.pos++
	raster := data[p.pos:]
	bps := 1
	if maxval > 255 {
		bps = 2
	}
	if want := w * h * bps; len(raster) < want {
		return nil, fileErr(file, 0, "raster", "has %d bytes, want %d (%dx%d, %d byte(s) per pixel)", len(raster), want, w, h, bps)
	}
	for k := range img.Gray {
		v := int(raster[k*bps])
		if bps == 2 {
			v = v<<8 | int(raster[k*bps+1])
		}
		if v > maxval {
			return nil, fileErr(file, 0, fmt.Sprintf("pixel %d", k), "%d is above maxval %d", v, maxval)
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
