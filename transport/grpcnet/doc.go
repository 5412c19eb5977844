// Package grpcnet is a transport.Transport over gRPC: the coordinator and
// its workers in separate processes or on separate hosts. It carries
// transport's messages unchanged, so the sync-model cores, the harness and
// the checker see the same messages as over package inproc.
//
// # Shape
//
// The coordinator's side is a Server: a Transport whose only local node is
// transport.Coordinator, and a gRPC service with one bidirectional-
// streaming method. Register it on a grpc.Server the caller owns (built
// with Server.ServerOptions, which carry its credentials, plus the
// caller's interceptors), or let Serve run one on a net.Listener. The workers' side
// is a Client: a Transport whose nodes are workers; Open(id) opens one
// stream to the coordinator for worker id over the client's connection
// (Dial makes one; NewClient takes the caller's) and returns once the
// coordinator has accepted it. A worker's message to another worker is
// relayed by the coordinator's server. One process may host many workers
// on one Client; the conformance suite (transporttest.Run) runs a Server
// and a Client in one process, over bufconn and over TCP loopback.
//
// # Security
//
// Every Config chooses TLS (Config.TLS) or, explicitly, Plaintext; there
// is no default. Package jobtls makes a job's credentials: a job CA, the
// server's certificate, a client certificate per worker, a bearer token
// (jobtls.Create writes them to a directory; jobtls.LoadServer and
// jobtls.LoadWorker read what each side needs).
//
//   - TLS is 1.3 unless Config.TLS says otherwise. With jobtls.ServerTLS
//     the server requires a client certificate issued by the job CA: a
//     client without one, or with one of another CA, fails the handshake
//     and sees codes.Unavailable (it never reaches the service). When a
//     client presents a certificate, the workers it names (a URI SAN
//     syncmodels://job/<job>/worker/<id>, see jobtls.Identity) must
//     include the stream's worker, and its job must be the token's:
//     otherwise codes.PermissionDenied.
//   - Plaintext is refused unless the connection is local: Serve refuses
//     a listener that is not on a loopback address (or a Unix socket, or
//     in memory), and both sides refuse, at the handshake and so before
//     any header or token is sent, a connection with a non-loopback end.
//     A server with TLS registered on a grpc.Server without its
//     credentials refuses plaintext streams (codes.Unauthenticated).
//   - Config.Token: a client sends "authorization: Bearer <token>" with
//     every stream (over TLS only, unless Plaintext); the server, through
//     go-grpc-middleware's auth interceptor, refuses a stream without the
//     job's token, with another, or with another job's (jobtls tokens name
//     their job) with codes.Unauthenticated. It compares SHA-256 digests
//     in constant time.
//   - Stream opens are rate-limited (go-grpc-middleware's ratelimit over a
//     golang.org/x/time/rate token bucket: Config.OpenRate per second,
//     OpenBurst at once): beyond it, codes.ResourceExhausted, and the
//     worker opens again later. The limit applies after authentication,
//     so unauthenticated clients cannot use up the workers' opens.
//   - A panic while serving a stream (in the handler, an interceptor, or
//     the stream's reader and writer goroutines) is recovered: the stream
//     ends with a plain codes.Internal "grpcnet: internal error" (never
//     the panic or its stack, which go-grpc-middleware's default recovery
//     would send as codes.Unknown), the panic is logged with its stack if
//     there is a Logger, and the server goes on serving.
//   - With Config.Logger, each stream is logged through go-grpc-middleware's
//     logging interceptor to log/slog: when it starts and when it ends,
//     with its code, its worker ("syncmodels.node") and the peer address;
//     refusals at Warn, faults at Error. Tokens are never logged. Without
//     a Logger nothing is.
//
// The checks run inside the service's handler, in the order recovery,
// logging, authentication (TLS, token, certificate identity), rate limit,
// so they hold on a grpc.Server the caller owns. Server.Rejected counts
// what was refused, by reason (failed handshakes, plaintext, missing,
// wrong and other-job tokens, identity, rate, metadata, duplicate
// attachments, malformed frames, panics); a refused stream or frame
// delivers nothing. The tests cover each refusal, with the conformance
// suite run over mutual TLS and a token.
//
// # Job description
//
// A worker process learns what to run from the coordinator before it
// attaches: Config.Job holds the job's description, opaque bytes (JSON,
// say; at most MaxMessage, so gRPC's 4 MiB limit does not apply), which
// Client.Job fetches and Server.SetJob replaces (a coordinator may know
// the job only after it built its server). The fetch is a second method of
// the service, Job, server-streaming with one frame each way (an empty
// request, the description), so it runs through the same guard as a
// stream: recovery, logging, TLS or loopback plaintext, the token, the
// client certificate's job, and a rate limit of OpenRate and OpenBurst in
// a bucket of its own (fetches do not use up the workers' opens). A fetch
// is refused with the codes a stream gets and counted in Server.Rejected.
// It names no worker and attaches none, so any worker certificate of the
// job will do; a fetch that does name one in "syncmodels-node" (Client.Job
// does not) must be named by its certificate (codes.PermissionDenied).
// A server without a description answers codes.NotFound (Client.Job's
// error wraps ErrNoJob).
//
// # Generation
//
// A coordinator restarted from its journal is the next generation of
// its job (Config.Generation). The server announces its generation in
// the header of every stream it accepts, and the endpoints Client.Open
// returns report it (Generation), so that a worker can refuse a stream
// from an older coordinator than one it has talked to (package cluster
// does).
//
// # Frames
//
// Each gRPC message is one transport.Message in transport's own binary
// encoding (Message.AppendBinary; transport.Unmarshal on arrival). A codec
// registered under the content-subtype "syncmodels-frame" passes the bytes
// through, and the service is a hand-written grpc.ServiceDesc, so the
// build has no protoc step and the core never sees generated types (the
// cost: no .proto for clients in other languages, no reflection for
// grpcurl). A stream's metadata names its worker ("syncmodels-node") and
// the job's layout ("syncmodels-layout"); the server refuses a second
// stream for a worker that is attached (codes.AlreadyExists, which Open
// reports as transport.ErrAlreadyOpen) and a layout other than its own
// (codes.FailedPrecondition).
//
// Every frame is validated where it arrives. The server refuses a frame
// that does not decode as a message of the layout, or whose From is not
// its stream's worker (no worker speaks for another): the stream ends
// with codes.InvalidArgument (codes.ResourceExhausted for one over
// MaxMessage), the frame is counted (Server.Malformed) and nothing it
// carried is delivered. A worker likewise refuses and counts a frame not
// addressed to it (Client.Malformed), and its endpoint closes.
//
// # Limits
//
// MaxMessage (default 64 MiB, as inproc's) is the size limit everywhere: a
// Send larger than it fails with transport.ErrTooLarge before anything is
// sent, and gRPC's send and receive limits are set to it on both sides
// (per call on the client; by ServerOptions on the server, so a
// grpc.Server built without them keeps gRPC's 4 MiB receive limit).
//
// # Delivery and backpressure
//
// A gRPC stream is reliable and ordered, so the transport neither drops
// nor duplicates while its streams live. Each endpoint has an inbox of
// Inbox messages; when it is full the stream is not read, gRPC's flow
// control fills, and senders block: a Send waits until its frame is handed
// to the stream's writer or its context ends (ctx.Err(), nothing sent). A
// message to a worker that was attached and has gone is dropped and
// counted as its sender's, as is one relayed to a worker that was never
// attached (the worker that sent it cannot know); the coordinator's Send
// to a worker never attached fails with transport.ErrUnknownNode.
// Messages lost inside a connection that breaks are counted by neither
// side.
//
// A relayed message waits for its destination's stream: a worker whose
// messages to a slow worker block also delays its messages to the
// coordinator (one reader per stream, in order).
//
// A worker endpoint's Close half-closes its stream and waits, up to
// CloseTimeout, until the coordinator has detached it, so the ID can be
// opened again at once. When a stream ends otherwise (the coordinator
// closed, the connection broke, a refused frame), the endpoint closes
// itself: Send and Recv return errors that wrap transport.ErrClosed and
// give the cause, and the worker comes back by opening its ID again.
// Server.Close ends every stream (codes.Unavailable) and Client.Close
// every endpoint; neither leaves a goroutine behind.
//
// # Keepalive
//
// Clients ping an idle connection every PingInterval (default and
// minimum 10 s, grpc-go's floor) and servers do too; the server's
// enforcement policy accepts pings every 5 s even without streams, so no
// grpc-go client earns the GOAWAY "too_many_pings" (grpc-go issue 5161).
// Keepalive detects dead connections in seconds; an application lease on
// top (RELIABILITY.md) detects dead workers faster.
//
// # Health and shutdown
//
// Serve also serves the standard gRPC health service
// (grpc.health.v1.Health, Server.Health): SERVING for "" and for
// ServiceName ("syncmodels.transport.v1.Transport") while the server
// serves, NOT_SERVING from Shutdown or Close on; on a grpc.Server of the
// caller's, register Server.Health beside Register. Health checks pass the
// server's transport credentials but not the transport's guard (token,
// certificate identity, rate limit): a probe has no job token, and the
// service says only whether the server serves. So over TLS with client
// certificates (jobtls.ServerTLS) a probe without a job certificate fails
// the handshake, as a worker would: Kubernetes' built-in grpc probe speaks
// no TLS, and a tcpSocket probe is counted as a failed handshake each
// time. Use an exec probe in the pod with the job's credentials, e.g.
// grpc_health_probe -addr=localhost:7070 -tls -tls-ca-cert=ca.pem
// -tls-client-cert=worker-0.pem -tls-client-key=worker-0-key.pem
// -service=syncmodels.transport.v1.Transport (the server's certificate
// must name the address probed). With Plaintext only loopback reaches the
// server, so only a probe inside the pod (exec) does.
//
// Shutdown(ctx) ends a server gracefully: it reports NOT_SERVING first,
// then refuses new worker streams and job fetches (codes.Unavailable
// "grpcnet: shutting down"), while the coordinator's endpoint and the
// streams attached go on carrying messages both ways; when the last stream
// has ended, or ctx is done, it closes everything as Close does (no
// goroutine left) and returns nil, or ctx's error if it had to end
// streams. The streams end when the coordinator's run ends them: a harness
// run drains its workers, then closes the transport itself, so Shutdown
// is for an owner that stops a job from outside (a SIGTERM), its ctx
// bounding the drain. Close stays immediate.
//
// # Cost
//
// On the 2-core reference machine (shared; medians of 3 runs), a heartbeat
// round trip worker → coordinator → worker (BenchmarkRoundTrip) takes about
// 30 µs over TCP loopback and 9.5 µs over bufconn, against 0.6 µs in
// process (inproc); a stream of commits of a dense 1 MiB delta
// (BenchmarkCommit1MiB) moves about 630 MB/s over TCP loopback and
// 780 MB/s over bufconn, against 960 MB/s in process: encoding and
// decoding the message dominate, as in inproc. Mutual TLS 1.3 with a token
// (grpc-tcp-tls; medians of 3 runs, side by side with plaintext TCP in one
// run on the then busier machine) costs 1.09× plaintext's round trip
// (25.3 µs against 23.3 µs) and 0.79× its commit throughput (287 against
// 361 MB/s): the records' encryption.
//
// # Stats
//
// Each side counts what it sees, per node and kind, like inproc: a
// node's Sent when its Send accepts a message, Received when its Recv
// returns one, and Dropped, as the sender's, when a message is dropped on
// arrival or relay. The Server counts the coordinator and the drops it
// makes; a Client counts its workers and the drops at their inboxes.
// Summed over both sides, as the suite does, Sent = Received + Dropped +
// in flight.
package grpcnet
