// Package tcpros is btrobot's own TCPROS: the ROS1 wire between nodes —
// connection headers, the ROS1 serialization of message structs, and the
// publisher, subscriber and service streams — written so that nothing a
// peer sends reaches an unbounded allocation (DESIGN.md, Listeners; issue
// 24).
//
// Why not goroslib's: goroslib v2.1.5 allocates what a peer declares, up
// to 16 MiB for each header field and each string or array of a message,
// on every connection, with no bound on connections; a peer on the
// network could push the controller into a fatal out-of-memory error,
// which no recover catches and after which nothing stops the robot.
// Here every length a peer declares is checked against what may follow
// before anything is allocated for it:
//
//   - a connection header is at most HeaderLimits.MaxSize bytes (64 KiB by
//     default) with at most MaxFields fields, read whole before parsing;
//   - a message frame is at most a per-topic bound (64 MiB by default) and
//     its buffer grows only as its bytes actually arrive, so a peer that
//     declares 64 MiB and sends 16 bytes holds 64 KiB;
//   - inside a frame, a string or array whose declared length exceeds what
//     is left of the frame is an error before it is allocated;
//   - a listener holds a bounded number of connections, each with a
//     deadline on its handshake, and a publisher a bounded queue for each
//     subscriber (a reader that falls behind loses the oldest messages; one
//     that reads nothing is closed after a write deadline).
//
// The message structs are goroslib's (goroslib/v2/pkg/msgs/...) and
// btrobot's own, declared the same way: a struct of ROS field types (bool,
// int8…int64, uint8…uint64, float32, float64, string, time.Time for time,
// time.Duration for duration, fixed arrays, slices, nested structs), with
// goroslib's msg.Package, msg.Name and msg.Definitions markers, which
// are not on the wire. The codec compiles a plan once per Go type.
package tcpros
