// Package tcpros is btrobot's own TCPROS: the ROS1 wire between nodes —
// connection headers, the ROS1 serialization of message structs, and the
// publisher, subscriber and service streams — written so that nothing a
// peer sends reaches an unbounded allocation (ARCHITECTURE.md, Listeners; issue
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
//   - a frame that has begun arrives whole within a timeout (a subscriber's
//     FrameTimeout, 60 s by default; a service request the handshake
//     timeout), so a peer cannot trickle one; between frames a peer may be
//     quiet;
//   - a node's port (Server) holds at most MaxConns connections (256),
//     handshakes included, each header due within the handshake timeout
//     (5 s); one more is closed at once, and running out of file
//     descriptors only pauses accepting;
//   - a publisher keeps a bounded queue for each subscriber: one that falls
//     behind loses the oldest messages, one that reads nothing is closed
//     after the write timeout, and neither holds up the others or Publish.
//
// What a peer can still do within the bounds: hold connections that
// completed a handshake (an idle subscriber of a quiet topic, an idle
// persistent service client) up to MaxConns, which keeps later peers out
// until they leave. Memory stays bounded whatever peers do: on a node's
// port, MaxConns × the larger of a header (64 KiB) and a service request
// (MaxRequest, 1 MiB), 256 MiB at worst with the defaults and some 17 MiB
// measured for 2,000 connections sending headers; for a subscription,
// about twice the bytes of its frame that have really arrived, at most
// MaxFrame.
//
// What this package does not do: the master and slave XML-RPC APIs
// (registration, requestTopic, publisherUpdate), reconnection, and the
// MD5 sums and definitions of message types (the caller passes them, as
// ros.Messages computes them with goroslib's msgproc). A time is ROS's
// uint32 seconds (1970 to 2106; goroslib reads seconds after 2038 as
// negative), a negative duration is written as roscpp and rospy write it
// (nanoseconds in [0, 1e9); goroslib writes them negative, and both read
// either).
//
// The message structs are goroslib's (goroslib/v2/pkg/msgs/...) and
// btrobot's own, declared the same way: a struct of ROS field types (bool,
// int8…int64, uint8…uint64, float32, float64, string, time.Time for time,
// time.Duration for duration, fixed arrays, slices, nested structs), with
// goroslib's msg.Package, msg.Name and msg.Definitions markers, which
// are not on the wire. The codec compiles a plan once per Go type.
package tcpros
