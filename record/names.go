package record

import (
	"path/filepath"
	"strings"
)

// The formats a recording's file name picks by its extension.
const (
	formatNone   = iota
	formatBTLog  // .btlog: BT.CPP's FileLogger2
	formatSQLite // .db3 or .btdb: a SQLite database
)

// formatOf is the format that path's extension (in any case) picks.
func formatOf(path string) int {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".btlog":
		return formatBTLog
	case ".db3", ".btdb":
		return formatSQLite
	}
	return formatNone
}

// IsRecordingName says whether path is named as a recording: .btlog
// (BT.CPP's FileLogger2, for Groot2) or .db3/.btdb (SQLite), in any case.
// It is the one list of the extensions: the Recorder writes by it, and
// the command line and the studio check and list files by it.
func IsRecordingName(path string) bool {
	return formatOf(path) != formatNone
}
