package sim_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/sim"
)

// The picture used by the loader tests: 3 x 2 pixels, top row first.
//
//	black  white  grey(unknown)
//	white  white  black
var (
	pictureP5 = append([]byte("P5\n3 2\n255\n"), 0, 254, 205, 254, 254, 0)
	pictureP2 = []byte("P2\n# made by hand\n3 2\n# maxval below\n15\n0 15 12\n15 15\n0\n")
)

// wantPicture is the grid the picture gives: row 0 is the image's bottom row.
var wantPicture = [2][3]sim.Cell{
	{sim.Free, sim.Free, sim.Occupied},
	{sim.Occupied, sim.Free, sim.Unknown},
}

func writeFiles(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	return dir
}

func gridCells(g *sim.Grid) [][]sim.Cell {
	out := make([][]sim.Cell, g.Height)
	for j := range out {
		out[j] = make([]sim.Cell, g.Width)
		for i := range out[j] {
			out[j][i] = g.At(i, j)
		}
	}
	return out
}

func pngOf(t testing.TB, gray [][]uint8, alpha [][]uint8) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, len(gray[0]), len(gray)))
	for y := range gray {
		for x := range gray[y] {
			a := uint8(255)
			if alpha != nil {
				a = alpha[y][x]
			}
			img.SetNRGBA(x, y, color.NRGBA{gray[y][x], gray[y][x], gray[y][x], a})
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

const goodYAML = "image: map.pgm\nresolution: 0.5\norigin: [-1.0, 2.0, 0.0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n"

func TestLoadMapReadsMapServerMaps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		yaml  string
		image []byte
		want  [2][3]sim.Cell
	}{
		{"binary PGM", goodYAML, pictureP5, wantPicture},
		{"ASCII PGM with comments and maxval 15", goodYAML, pictureP2, wantPicture},
		{"16-bit PGM", goodYAML, append([]byte("P5 3 2 65535\n"), 0, 0, 0xfe, 0xfe, 0xcd, 0xcd, 0xfe, 0xfe, 0xfe, 0xfe, 0, 0), wantPicture},
		{"PNG", strings.Replace(goodYAML, "map.pgm", "map.png", 1),
			pngOf(t, [][]uint8{{0, 254, 205}, {254, 254, 0}}, nil), wantPicture},
		{"PNG with a transparent pixel", strings.Replace(goodYAML, "map.pgm", "map.png", 1),
			pngOf(t, [][]uint8{{0, 254, 205}, {254, 254, 0}}, [][]uint8{{255, 0, 255}, {255, 255, 255}}),
			[2][3]sim.Cell{{sim.Free, sim.Free, sim.Occupied}, {sim.Occupied, sim.Unknown, sim.Unknown}}},
		{"negate", strings.Replace(goodYAML, "negate: 0", "negate: 1", 1), pictureP5,
			// Grey 205 negated is dark: occupied, as map_server has it.
			[2][3]sim.Cell{{sim.Occupied, sim.Occupied, sim.Free}, {sim.Free, sim.Occupied, sim.Occupied}}},
		{"thresholds that make grey free", strings.Replace(goodYAML, "free_thresh: 0.196", "free_thresh: 0.3", 1), pictureP5,
			[2][3]sim.Cell{{sim.Free, sim.Free, sim.Occupied}, {sim.Occupied, sim.Free, sim.Free}}},
		{"scale mode: between the thresholds is free", goodYAML + "mode: scale\n", pictureP5,
			[2][3]sim.Cell{{sim.Free, sim.Free, sim.Occupied}, {sim.Occupied, sim.Free, sim.Free}}},
		{"defaults for the optional keys", "image: map.pgm\nresolution: 0.5\norigin: [-1, 2, 0]\n", pictureP5, wantPicture},
		{"unknown keys are ignored", goodYAML + "comment: drawn by hand\n", pictureP5, wantPicture},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img := "map.pgm"
			if strings.Contains(tc.yaml, "map.png") {
				img = "map.png"
			}
			dir := writeFiles(t, map[string][]byte{"map.yaml": []byte(tc.yaml), img: tc.image})
			g, err := sim.LoadMap(filepath.Join(dir, "map.yaml"))
			require.NoError(t, err)
			require.Equal(t, 3, g.Width, "grid %dx%d at %v m, origin %v", g.Width, g.Height, g.Resolution, g.Origin)
			require.Equal(t, 2, g.Height, "grid %dx%d at %v m, origin %v", g.Width, g.Height, g.Resolution, g.Origin)
			require.Equal(t, 0.5, g.Resolution, "grid %dx%d at %v m, origin %v", g.Width, g.Height, g.Resolution, g.Origin)
			require.Equal(t, (sim.Pose{X: -1, Y: 2}), g.Origin, "grid %dx%d at %v m, origin %v", g.Width, g.Height, g.Resolution, g.Origin)
			got := gridCells(g)
			for j := range 2 {
				for i := range 3 {
					assert.Equal(t, tc.want[j][i], got[j][i], "cell (%d, %d) = %v, want %v", i, j, got[j][i], tc.want[j][i])
				}
			}
		})
	}
}

func TestMapOriginIsTheBottomLeftCorner(t *testing.T) {
	dir := writeFiles(t, map[string][]byte{"map.yaml": []byte(goodYAML), "map.pgm": pictureP5})
	g, err := sim.LoadMap(filepath.Join(dir, "map.yaml"))
	require.NoError(t, err)
	for _, tc := range []struct {
		x, y float64
		want sim.Cell
	}{
		{-0.99, 2.01, sim.Free},     // the bottom-left pixel (white)
		{-0.99, 2.99, sim.Occupied}, // the top-left pixel (black)
		{0.49, 2.01, sim.Occupied},  // the bottom-right pixel (black)
		{0.49, 2.99, sim.Unknown},   // the top-right pixel (grey)
	} {
		i, j, ok := g.CellOf(tc.x, tc.y)
		if assert.True(t, ok, "(%v, %v): cell (%d, %d) in=%v is %v, want %v", tc.x, tc.y, i, j, ok, g.At(i, j), tc.want) {
			assert.Equal(t, tc.want, g.At(i, j), "(%v, %v): cell (%d, %d) in=%v is %v, want %v", tc.x, tc.y, i, j, ok, g.At(i, j), tc.want)
		}
	}
	_, _, ok := g.CellOf(-1.01, 2.5)
	assert.False(t, ok, "a point west of the origin is on the map")
	x, y := g.CellCenter(0, 0)
	assert.Equal(t, -0.75, x, "centre of cell (0, 0) = (%v, %v), want (-0.75, 2.25)", x, y)
	assert.Equal(t, 2.25, y, "centre of cell (0, 0) = (%v, %v), want (-0.75, 2.25)", x, y)
}

func TestLoadMapErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		yaml  string
		image []byte // map.pgm; nil: use pictureP5
		want  string
	}{
		{"YAML syntax", "image: map.pgm\nresolution: [0.05\norigin: [0, 0, 0]\n", nil,
			"map.yaml:2:1: not valid YAML: did not find expected ',' or ']'"},
		{"tab indentation", "image: map.pgm\nresolution: 0.05\n\torigin: [0, 0, 0]\n", nil,
			"map.yaml:3:1: not valid YAML: found a tab character that violates indentation"},
		{"unterminated string", "image: \"map.pgm\nresolution: 0.05\n", nil,
			"map.yaml:1:8: not valid YAML: found unexpected end of stream"},
		{"a list instead of a mapping", "- image\n- resolution\n", nil,
			"map.yaml:1:1: want a mapping of keys to values, got a list"},
		{"empty file", "", nil, "map.yaml: empty document"},
		{"missing image", "resolution: 0.05\norigin: [0, 0, 0]\n", nil,
			"map.yaml: image: missing (a map_server map needs image, resolution and origin)"},
		{"missing origin", "image: map.pgm\nresolution: 0.05\n", nil,
			"map.yaml: origin: missing (a map_server map needs image, resolution and origin)"},
		{"negative resolution", "image: map.pgm\nresolution: -0.05\norigin: [0, 0, 0]\n", nil,
			"map.yaml:2:13: resolution: must be > 0 metres per pixel, got -0.05"},
		{"resolution not a number", "image: map.pgm\nresolution: fine\norigin: [0, 0, 0]\n", nil,
			`map.yaml:2:13: resolution: want a number, got "fine"`},
		{"origin with two numbers", "image: map.pgm\nresolution: 0.05\norigin: [0, 0]\n", nil,
			"map.yaml:3:9: origin: want [x, y, yaw], got 2 numbers"},
		{"origin not a list", "image: map.pgm\nresolution: 0.05\norigin: 0\n", nil,
			`map.yaml:3:9: origin: want [x, y, yaw], got "0"`},
		{"origin with a word", "image: map.pgm\nresolution: 0.05\norigin: [0, north, 0]\n", nil,
			`map.yaml:3:13: origin[1]: want a number, got "north"`},
		{"negate 2", goodYAML + "", nil, ""}, // placeholder replaced below
		{"threshold above 1", strings.Replace(goodYAML, "occupied_thresh: 0.65", "occupied_thresh: 1.5", 1), nil,
			"map.yaml:5:18: occupied_thresh: must be between 0 and 1, got 1.5"},
		{"free above occupied", strings.Replace(goodYAML, "free_thresh: 0.196", "free_thresh: 0.7", 1), nil,
			"map.yaml:6:14: free_thresh: 0.7 must be below occupied_thresh 0.65"},
		{"raw mode", goodYAML + "mode: raw\n", nil, "map.yaml:7:7: mode: raw is not supported; use trinary or scale"},
		{"unknown mode", goodYAML + "mode: fancy\n", nil, `map.yaml:7:7: mode: want trinary or scale, got "fancy"`},
		{"misspelt key", strings.Replace(goodYAML, "resolution", "resolutoin", 1), nil,
			"map.yaml:2:1: resolutoin: unknown key; did you mean resolution?"},
		{"key given twice", goodYAML + "resolution: 0.1\n", nil, "map.yaml:7:1: resolution: given twice (first on line 2)"},
		{"image missing", strings.Replace(goodYAML, "map.pgm", "nothere.pgm", 1), nil,
			"map.yaml:1:8: image: nothere.pgm: no such file or directory"},
		{"not an image", goodYAML, []byte("hello, world"), "map.pgm: not a PGM (P5 or P2) or PNG image: image: unknown format"},
		{"colour PPM", goodYAML, []byte("P6\n3 2\n255\n"), `map.pgm:1:1: magic: "P6" is not a greyscale PGM; want P5 (binary) or P2 (ASCII)`},
		{"width not a number", goodYAML, []byte("P5\n# size next\nthree 2\n255\n"), `map.pgm:3:1: width: want a whole number, got "three"`},
		{"no pixels", goodYAML, []byte("P5 0 2 255\n"), "map.pgm:1:4: size: 0x2 has no pixels"},
		{"maxval 0", goodYAML, []byte("P2\n3 2\n0\n"), "map.pgm:3:1: maxval: must be between 1 and 65535, got 0"},
		{"header cut short", goodYAML, []byte("P5\n3 2\n"), "map.pgm:3:1: maxval: missing: file ends early"},
		{"raster cut short", goodYAML, []byte("P5\n3 2\n255\n\x00\x00"), "map.pgm: raster: has 2 bytes, want 6 (3x2, 1 byte(s) per pixel)"},
		{"ASCII pixel above maxval", goodYAML, []byte("P2\n3 2\n15\n0 15 12\n15 16 0\n"), "map.pgm:5:4: pixel 4: 16 is above maxval 15"},
		{"ASCII pixels missing", goodYAML, []byte("P2\n3 2\n15\n0 15 12\n"), "map.pgm: raster: has 3 pixels, want 6 (3x2)"},
		{"ASCII pixel not a number", goodYAML, []byte("P2\n3 2\n15\n0 15 x\n"), `map.pgm:4:6: pixel 2: want a whole number, got "x"`},
		{"huge size", goodYAML, []byte("P5 100000 2 255\n"), "map.pgm:1:4: width: 100000 is too large (at most 32768)"},
		{"a header claiming 10^6 x 10^6", goodYAML, []byte("P5 1000000 1000000 255\n"), "map.pgm:1:4: width: 1000000 is too large (at most 32768)"},
		{"a header claiming 2^30 pixels", goodYAML, []byte("P5 32768 32768 255\n\x00"), "map.pgm:1:4: size: 32768x32768 pixels is more than a map may have: at most 32768 a side and 67108864 (8192x8192) in all"},
		{"a binary raster far too short for its header", goodYAML, []byte("P5 8000 8000 255\n\x00\x00"), "map.pgm: raster: has 2 bytes, want 64000000 (8000x8000, 1 byte(s) per pixel)"},
		{"an ASCII raster far too short for its header", goodYAML, []byte("P2 8000 8000 255\n0 0"), "map.pgm: raster: has 4 bytes, too few for 64000000 pixels (8000x8000)"},
		{"a PNG claiming 20000 x 20000", goodYAML, hugePNGHeader(20000, 20000), "map.pgm: size: 20000x20000 pixels is more than a map may have: at most 32768 a side and 67108864 (8192x8192) in all"},
		{"an image that is /dev/zero", "image: /dev/zero\nresolution: 0.05\norigin: [0, 0, 0]\n", nil, "map.yaml:1:8: image: /dev/zero: a character device, not a regular file: a map image is read from a regular file"},
	} {
		if tc.name == "negate 2" {
			tc.yaml = strings.Replace(goodYAML, "negate: 0", "negate: 2", 1)
			tc.want = "map.yaml:4:9: negate: want 0 or 1, got \"2\""
		}
		t.Run(tc.name, func(t *testing.T) {
			img := tc.image
			if img == nil {
				img = pictureP5
			}
			dir := writeFiles(t, map[string][]byte{"map.yaml": []byte(tc.yaml), "map.pgm": img})
			_, err := sim.LoadMap(filepath.Join(dir, "map.yaml"))
			require.Error(t, err, "no error, want %s", tc.want)
			got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			assert.Equal(t, tc.want, got, "error:\n got %s\nwant %s", got, tc.want)
		})
	}
}

func TestSaveAndLoadRoundTrip(t *testing.T) {
	g := roomGrid(t, 3, 2, 0.1)
	g.Set(5, 5, sim.Unknown)
	g.Origin = sim.Pose{X: -1.5, Y: 0.25}
	dir := t.TempDir()
	var pgm, yml bytes.Buffer
	require.NoError(t, sim.EncodePGM(&pgm, g))
	require.NoError(t, sim.EncodeMapYAML(&yml, g, "room.pgm"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "room.pgm"), pgm.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "room.yaml"), yml.Bytes(), 0o644))
	back, err := sim.LoadMap(filepath.Join(dir, "room.yaml"))
	require.NoError(t, err)
	require.Equal(t, g.Width, back.Width, "loaded %dx%d at %v", back.Width, back.Height, back.Resolution)
	require.Equal(t, g.Height, back.Height, "loaded %dx%d at %v", back.Width, back.Height, back.Resolution)
	require.Equal(t, g.Resolution, back.Resolution, "loaded %dx%d at %v", back.Width, back.Height, back.Resolution)
	// NewGrid caches the origin; compare the loaded one with what was written.
	assert.Equal(t, (sim.Pose{X: -1.5, Y: 0.25}), back.Origin, "origin %v", back.Origin)
	for j := range g.Height {
		for i := range g.Width {
			require.Equal(t, g.At(i, j), back.At(i, j), "cell (%d, %d): %v, want %v", i, j, back.At(i, j), g.At(i, j))
		}
	}
}

// hugePNGHeader returns the start of a PNG whose header claims w x h pixels:
// enough for image.DecodeConfig, nothing to decode.
func hugePNGHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 0 // 8-bit greyscale
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(ihdr)))
	b.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte("IHDR"))
	crc.Write(ihdr)
	b.WriteString("IHDR")
	b.Write(ihdr)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	b.Write(n[:])
	return b.Bytes()
}
