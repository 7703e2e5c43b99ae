// Package inproc is a ROS graph inside one process: the master's part (node
// names, registrations, a parameter server) and, per node, publishers,
// subscribers, service servers and clients, with TCPROS's semantics where a
// mission can see them, and no sockets. It is the second transport of
// package ros, for a controller and a simulator that share a process (hil,
// the demo, tests); it imports nothing of ros and knows no message registry:
// every endpoint names its type (ROS name and md5sum) and gives its Go type.
//
// What it keeps from ROS 1:
//
//   - A topic has one type: a publisher or subscriber of another ROS type,
//     md5sum or Go type than the topic's live endpoints is refused (TCPROS
//     would register it and never connect it).
//   - A latched publisher hands its last message to every subscriber that
//     comes later.
//   - Each subscriber has its own bounded queue (SubscriberConf.QueueSize);
//     when it is full the oldest message is dropped and counted, as roscpp
//     does. Its callback runs on the subscriber's own goroutine, in the
//     order the messages were published.
//   - Messages are copied, never shared: Publish copies the message (deeply:
//     slices, pointers, maps) once for each subscriber, and a service's
//     request and response are copied across. Copy is the deep copy, with a
//     plan per Go type built once.
//   - A service call with no provider fails with ErrServiceUnavailable, a
//     handler's error with ErrServiceFailed; a caller's context abandons the
//     call.
//   - A node that registers a name in use shuts the older node down, as the
//     ROS master does: the older node's NodeConf.OnShutdown runs first, while
//     its publishers still deliver, then it is closed.
//   - A node that Closes unregisters everything; one that is Killed dies
//     without unregistering (a crashed process): its registrations stay in
//     the graph and Ping says it is dead. Either way the subscribers of its
//     topics are told that a publisher left (SubscriberConf.OnPublisherLost),
//     as TCPROS's closed connection tells them.
//   - Publish says how many subscribers the message was handed to: the
//     delivery check of a zero velocity.
package inproc
