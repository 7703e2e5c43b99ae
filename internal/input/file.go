package input

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/btrobot/btrobot/runtime"
)

// Kind is what a file holds: its name in errors and the largest size
// btrobot reads of it. The sizes are far above what a real robot needs and
// low enough that the program stays small when given something hostile.
type Kind struct {
	// What names the kind in errors ("robot profile").
	What string
	// MaxSize bounds the file, in bytes.
	MaxSize int64
}

// The sizes of the kinds of input, in bytes.
const (
	// MaxTreeSize bounds a tree file or an included one. The largest trees
	// measured (100k nodes) take 8 MiB.
	MaxTreeSize = 32 << 20
	// MaxDocumentSize bounds a YAML document: a profile (about 2 KiB for a
	// real robot), a places file (10,000 places fit in 600 KiB), a map
	// file, a scenario. yaml.v3 spends a few hundred bytes per node, so 1
	// MiB of YAML stays below 100 MB however it is written.
	MaxDocumentSize = 1 << 20
	// MaxImageSize bounds a map image (PGM or PNG): 8192×8192 binary PGM
	// pixels, or an ASCII one of a few million.
	MaxImageSize = 64 << 20
)

// The kinds of input btrobot reads.
var (
	Tree     = Kind{What: "tree file", MaxSize: MaxTreeSize}
	Profile  = Kind{What: "robot profile", MaxSize: MaxDocumentSize}
	Places   = Kind{What: "places file", MaxSize: MaxDocumentSize}
	Map      = Kind{What: "map file", MaxSize: MaxDocumentSize}
	MapImage = Kind{What: "map image", MaxSize: MaxImageSize}
	Scenario = Kind{What: "scenario", MaxSize: MaxDocumentSize}
)

// ReadFile reads the file at path, which must be a regular file (symbolic
// links are followed) of at most k.MaxSize bytes. A FIFO, a device, a
// socket or a directory is refused before it is opened for reading, so
// that the call never blocks on it; a file that grows while it is read is
// refused once it passes the limit.
//
// The error is a *runtime.BuildError placed at path when the file is of the
// wrong type or too large (its Msg reads well after "cannot include x: "),
// and the *fs.PathError of the operating system when the file cannot be
// opened (errors.Is(err, fs.ErrNotExist) holds for a missing file).
func ReadFile(path string, k Kind) ([]byte, error) {
	var data []byte
	err := readFile(path, k, func(f *os.File, size int64) error {
		var err error
		data, err = io.ReadAll(io.LimitReader(f, k.MaxSize+1))
		return err
	})
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > k.MaxSize {
		return nil, k.tooLarge(path, "more than "+fmt.Sprint(k.MaxSize)+" bytes")
	}
	return data, nil
}

// ReadFileString is ReadFile for a caller that wants the text as a string:
// the string is sized from the file's size and filled in place, where
// ReadFile's growing buffer and a conversion cost the file's size up to
// three times over (a 100,000-node tree is 1.7 MB).
func ReadFileString(path string, k Kind) (string, error) {
	var b strings.Builder
	err := readFile(path, k, func(f *os.File, size int64) error {
		// One byte more than the size, so that reading the end of an
		// unchanged file does not grow the string.
		b.Grow(int(min(size, k.MaxSize)) + 1)
		_, err := io.Copy(&b, io.LimitReader(f, k.MaxSize+1))
		return err
	})
	if err != nil {
		return "", err
	}
	if int64(b.Len()) > k.MaxSize {
		return "", k.tooLarge(path, "more than "+fmt.Sprint(k.MaxSize)+" bytes")
	}
	return b.String(), nil
}

// readFile opens path after checking its kind and size, checks what was
// opened again, and hands it to read with its size.
func readFile(path string, k Kind, read func(f *os.File, size int64) error) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if err := k.check(path, st); err != nil {
		return err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// The file may have been replaced since the Stat: check what was opened.
	if st, err = f.Stat(); err != nil {
		return err
	}
	if err := k.check(path, st); err != nil {
		return err
	}
	return read(f, st.Size())
}

// check refuses a file that is not regular or is too large.
func (k Kind) check(path string, st fs.FileInfo) error {
	if !st.Mode().IsRegular() {
		return &runtime.BuildError{Pos: runtime.Pos{File: path},
			Msg: fmt.Sprintf("%s, not a regular file: a %s is read from a regular file", fileType(st.Mode()), k.What)}
	}
	if st.Size() > k.MaxSize {
		return k.tooLarge(path, fmt.Sprint(st.Size(), " bytes"))
	}
	return nil
}

func (k Kind) tooLarge(path, size string) error {
	return &runtime.BuildError{Pos: runtime.Pos{File: path},
		Msg: fmt.Sprintf("file is %s, more than the %d bytes (%s) a %s may have", size, k.MaxSize, Size(k.MaxSize), k.What)}
}

// CheckSize refuses data larger than k allows, as ReadFile does, for
// callers that are given bytes rather than a path; name is the file name
// errors report.
func (k Kind) CheckSize(name string, data []byte) error {
	if int64(len(data)) > k.MaxSize {
		return k.tooLarge(name, fmt.Sprint(len(data), " bytes"))
	}
	return nil
}

// Size writes a size in bytes as people read it: 1 MiB, 64 MiB, 512 KiB.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// fileType names the type of a file that is not regular.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}
