package grpcnet_test

import (
	"net"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/transport/grpcnet"
)

// pings connects to addr as a bare HTTP/2 client, sends n pings every
// interval with no stream open, and returns the GOAWAY debug data the
// server answered with ("" if none came within two intervals of the
// last ping).
func pings(t *testing.T, addr string, n int, every time.Duration) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(conn, conn)
	var mu sync.Mutex // the framer's writes
	write := func(f func() error) {
		mu.Lock()
		defer mu.Unlock()
		if err := f(); err != nil {
			t.Errorf("write: %v", err)
		}
	}
	write(func() error { return fr.WriteSettings() })
	goaway := make(chan string, 1)
	go func() {
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			switch f := f.(type) {
			case *http2.SettingsFrame:
				if !f.IsAck() {
					write(func() error { return fr.WriteSettingsAck() })
				}
			case *http2.GoAwayFrame:
				goaway <- string(f.DebugData())
				return
			}
		}
	}()
	for i := range n {
		time.Sleep(every)
		write(func() error { return fr.WritePing(false, [8]byte{byte(i)}) })
		select {
		case d := <-goaway:
			return d
		default:
		}
	}
	select {
	case d := <-goaway:
		return d
	case <-time.After(2 * every):
		return ""
	}
}

// TestKeepaliveEnforcement: the server built with ServerOptions accepts
// pings as often as its enforcement interval allows, even with no stream
// open, and sends the GOAWAY "too_many_pings" of grpc-go issue 5161 only
// to a client that pings more often. The interval is shortened from 5 s
// (half of grpc-go's 10 s floor for client pings, so no grpc-go client
// can earn the GOAWAY) to 50 ms so that the test takes a second.
func TestKeepaliveEnforcement(t *testing.T) {
	leakCheck(t)
	srv, err := grpcnet.NewServer(grpcnet.WithMinPingInterval(grpcnet.Config{Layout: algorithms.Layout{Params: 1, Delta: 1}, Plaintext: true}, 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	defer func() { srv.Close(); <-served }()

	if d := pings(t, lis.Addr().String(), 10, 100*time.Millisecond); d != "" {
		t.Errorf("pings every 100 ms against an enforcement interval of 50 ms: GOAWAY %q; want none", d)
	}
	if d := pings(t, lis.Addr().String(), 20, 5*time.Millisecond); d != "too_many_pings" {
		t.Errorf("pings every 5 ms against an enforcement interval of 50 ms: GOAWAY %q; want \"too_many_pings\"", d)
	}
}
