package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binary is the redis-server program Start looks for in $PATH.
const Binary = "redis-server"

// ready is how long a started server has to answer PING.
const ready = 10 * time.Second

// Server is a redis-server process started by Start.
type Server struct {
	// Addr is the server's address, 127.0.0.1:port. It stays the same
	// across Restart.
	Addr string

	t    testing.TB
	bin  string
	dir  string
	port int

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{} // closed when cmd has exited
}

// Start starts redis-server on a free loopback port, in a temporary
// directory, with persistence off (no RDB snapshots, no append-only file),
// and stops it when the test ends (t.Cleanup). It skips the test if
// redis-server is not in $PATH, and fails it if the server does not start.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath(Binary)
	if err != nil {
		t.Skipf("redistest: %s not found in $PATH: install Debian's redis-server package (apt-get install redis-server) to run the Redis tests", Binary)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir()}
	var last error
	for range 5 { // a free port may be taken before the server binds it
		if s.port, err = freePort(); err != nil {
			t.Fatalf("redistest: %v", err)
		}
		if last = s.start(); last == nil {
			s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("redistest: %v", last)
	return nil
}

// URL returns the server's address as a redis:// URL.
func (s *Server) URL() string { return "redis://" + s.Addr }

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// start starts the server on s.port and waits until it answers PING.
func (s *Server) start() error {
	log := filepath.Join(s.dir, "redis.log")
	cmd := exec.Command(s.bin,
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--dir", s.dir,
		"--logfile", log,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--protected-mode", "yes",
		"--maxmemory-policy", "noeviction",
	)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	deadline := time.Now().Add(ready)
	for {
		select {
		case <-exited:
			return fmt.Errorf("%s on port %d exited: %s", s.bin, s.port, tail(log))
		default:
		}
		if ping(addr) == nil {
			return nil
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("%s on port %d did not answer PING within %v: %s", s.bin, s.port, ready, tail(log))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ping sends PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// tail returns the end of the server's log, for error messages.
func tail(log string) string {
	b, err := os.ReadFile(log)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return "log: " + strings.Join(lines[max(0, len(lines)-5):], " | ")
}

// Kill kills the server (SIGKILL) and waits for it to exit: what a crash
// or a preempted host does. Its data is gone.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// Restart kills the server and starts a new one on the same port, empty
// (persistence is off), and returns once it answers. Clients reconnect to
// it; what they had stored is lost.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	var err error
	for range 50 { // the port may linger for a moment
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("redistest: restart: %v", err)
}

// Stop kills the server; Start registers it with t.Cleanup.
func (s *Server) Stop() { s.Kill() }
