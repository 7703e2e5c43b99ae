package cli

import (
	"io"
	"strings"
	"sync"
)

// Prefixed writes to W with Prefix before every line, each Write whole
// under Mu, so that several writers sharing Mu and W (a fleet's robots on
// one terminal) never interleave within a line.
type Prefixed struct {
	Mu     *sync.Mutex
	W      io.Writer
	Prefix string
}

func (p *Prefixed) Write(b []byte) (int, error) {
	var out strings.Builder
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" {
			out.WriteString(p.Prefix + l)
		}
	}
	p.Mu.Lock()
	defer p.Mu.Unlock()
	_, err := io.WriteString(p.W, out.String())
	return len(b), err
}
