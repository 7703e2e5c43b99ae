// Package worlds ships the simulator's worlds (map_server maps and their
// places) inside the btrobot binary, so that `btrobot demo` runs where only
// the binary is installed.
package worlds

import "embed"

// FS holds office/ and warehouse/ as they are in this directory.
//
//go:embed office warehouse
var FS embed.FS
