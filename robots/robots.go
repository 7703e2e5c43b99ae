// Package robots ships btrobot's robot profiles inside the binary, so that
// `btrobot demo` runs where only the binary is installed.
package robots

import "embed"

// FS holds the profiles (*.yaml) of this directory.
//
//go:embed *.yaml
var FS embed.FS
