package groot2

// Groot2's live protocol, as BehaviorTree.CPP 4.10's Groot2Publisher speaks
// it. Every request and reply is a multipart ZeroMQ message on a REQ/REP
// pair; integers are little-endian.
//
//	request  part 1: protocol (1 byte, 2), type (1 byte), request id (uint32)
//	         part 2: the request's argument, for the types that take one
//	reply    part 1: the request's 6 bytes (protocol 2), then the tree's UUID (16 bytes)
//	         part 2: the answer, for the types that give one
//	error    "error", then the message
//
// The PUB socket (the port after the REP's) carries one notification: a
// breakpoint was reached (a request header of type 'N', then the node's
// UID as decimal text).

import (
	"encoding/binary"
	"fmt"

	"github.com/btrobot/btrobot/runtime"
)

const protocolID = 2

// The request types.
const (
	reqFullTree        = 'T' // the tree's XML
	reqStatus          = 'S' // every node's status
	reqBlackboard      = 'B' // blackboards by name, msgpack
	reqHookInsert      = 'I'
	reqHookRemove      = 'R'
	reqBreakpointReach = 'N' // published, never requested
	reqBreakpointUnlck = 'U'
	reqHooksDump       = 'D'
	reqRemoveAllHooks  = 'A'
	reqDisableAllHooks = 'X'
	reqToggleRecording = 'r'
	reqGetTransitions  = 't'
)

const requestHeaderSize = 6

type requestHeader struct {
	protocol uint8
	typ      uint8
	id       uint32
}

func (h requestHeader) encode() []byte {
	b := make([]byte, requestHeaderSize)
	b[0], b[1] = h.protocol, h.typ
	binary.LittleEndian.PutUint32(b[2:], h.id)
	return b
}

func decodeRequestHeader(b []byte) (requestHeader, error) {
	if len(b) != requestHeaderSize {
		return requestHeader{}, fmt.Errorf("wrong request header")
	}
	return requestHeader{protocol: b[0], typ: b[1], id: binary.LittleEndian.Uint32(b[2:])}, nil
}

// Hook positions and modes, as Groot2 numbers them.
const (
	posPre  = 0
	posPost = 1

	modeBreakpoint = 0
	modeReplace    = 1
)

// hookJSON is a hook as Groot2 sends it and as HOOKS_DUMP returns it; the
// fields are in the order BT.CPP's JSON library writes them (sorted).
type hookJSON struct {
	DesiredStatus string `json:"desired_status"`
	Enabled       bool   `json:"enabled"`
	Mode          int    `json:"mode"`
	Once          bool   `json:"once"`
	Position      int    `json:"position"`
	UID           uint16 `json:"uid"`
}

// unlockJSON is a BREAKPOINT_UNLOCK's argument.
type unlockJSON struct {
	UID            uint16 `json:"uid"`
	DesiredStatus  string `json:"desired_status"`
	Position       int    `json:"position"`
	RemoveWhenDone bool   `json:"remove_when_done"`
}

// statusText reads a status as BT.CPP's convertFromString does for hooks.
func statusText(s string) (runtime.Status, error) {
	st, err := runtime.ParseStatus(s)
	if err != nil {
		return runtime.Skipped, fmt.Errorf("desired_status %q: want IDLE, RUNNING, SUCCESS, FAILURE or SKIPPED", s)
	}
	return st, nil
}
