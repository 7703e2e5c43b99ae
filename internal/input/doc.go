// Package input reads the files btrobot is given — trees and their
// includes, robot profiles, places, map files and map images, scenarios —
// so that no input can hang the program or exhaust its memory, and so that
// every problem with a file reads alike: file:line:col, then what is wrong
// and what would be right (a runtime.BuildError).
//
// ReadFile refuses anything but a regular file before reading a byte (a
// FIFO would block forever, /dev/zero never ends, a directory is a
// mistake) and reads at most the size its Kind allows. YAML parses a
// document into yaml.v3 nodes and places its syntax errors.
//
// The package sits just above runtime: it imports runtime for its error
// type and nothing else of the project, so trees, ros, sim, places and
// skills may all use it.
package input
