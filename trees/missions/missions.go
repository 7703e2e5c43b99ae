// Package missions ships btrobot's mission trees inside the binary, so that
// `btrobot demo` runs where only the binary is installed.
package missions

import "embed"

// FS holds the mission files (*.xml) of this directory.
//
//go:embed *.xml
var FS embed.FS
