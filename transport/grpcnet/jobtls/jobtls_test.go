package jobtls_test

import (
	"crypto/tls"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/syncmodels/syncmodels/transport"
	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
)

func mustCA(t *testing.T, job string) *jobtls.CA {
	t.Helper()
	ca, err := jobtls.NewCA(job)
	if err != nil {
		t.Fatalf("NewCA(%q) = %v", job, err)
	}
	return ca
}

// handshake runs a TLS handshake between a server and a client configured
// with srv and cli over an in-memory pipe and returns the server's error
// and the client's (which, in TLS 1.3, sees a refused client certificate
// only when it reads). The connections are not closed with a close_notify,
// which would block on the synchronous pipe: the pipe is closed under them.
func handshake(t *testing.T, srv, cli *tls.Config) (serverErr, clientErr error) {
	t.Helper()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	s, c := tls.Server(a, srv), tls.Client(b, cli)
	done := make(chan error, 1)
	go func() {
		err := s.Handshake()
		if err == nil {
			_, err = s.Write([]byte{1})
		}
		done <- err
	}()
	clientErr = c.Handshake()
	if clientErr == nil {
		_, clientErr = c.Read(make([]byte, 1))
		if clientErr == nil && c.ConnectionState().Version != tls.VersionTLS13 {
			t.Errorf("negotiated TLS version %#x; want TLS 1.3", c.ConnectionState().Version)
		}
	}
	return <-done, clientErr
}

func TestHandshake(t *testing.T) {
	ca, other := mustCA(t, "job-a"), mustCA(t, "job-b")
	srvCert, err := ca.IssueServer("127.0.0.1", "localhost", "coord.jobs.svc")
	if err != nil {
		t.Fatal(err)
	}
	w3, err := ca.IssueWorker(3)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := other.IssueWorker(3)
	if err != nil {
		t.Fatal(err)
	}
	serverTLS := jobtls.ServerTLS(srvCert, ca.Pool())
	for _, c := range []struct {
		name   string
		cli    *tls.Config
		wantOK bool
	}{
		{"worker of the job, by IP", jobtls.ClientTLS(w3, ca.Pool(), "127.0.0.1"), true},
		{"worker of the job, by DNS name", jobtls.ClientTLS(w3, ca.Pool(), "coord.jobs.svc"), true},
		{"server name not in the certificate", jobtls.ClientTLS(w3, ca.Pool(), "10.1.2.3"), false},
		{"no client certificate", &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", MinVersion: tls.VersionTLS13}, false},
		{"client certificate of another job's CA", jobtls.ClientTLS(foreign, ca.Pool(), "localhost"), false},
		{"client trusting another CA", jobtls.ClientTLS(w3, other.Pool(), "localhost"), false},
		{"TLS 1.2 client", &tls.Config{Certificates: []tls.Certificate{w3}, RootCAs: ca.Pool(), ServerName: "localhost", MaxVersion: tls.VersionTLS12}, false},
	} {
		se, ce := handshake(t, serverTLS, c.cli)
		if ok := se == nil && ce == nil; ok != c.wantOK {
			t.Errorf("%s: handshake: server %v, client %v; want success %v", c.name, se, ce, c.wantOK)
		}
	}
}

func TestIdentity(t *testing.T) {
	ca := mustCA(t, "job.1_x")
	c, err := ca.IssueWorker(5, 0, transport.MaxNode)
	if err != nil {
		t.Fatal(err)
	}
	job, ids, err := jobtls.Identity(c.Leaf)
	if want := []transport.NodeID{5, 0, transport.MaxNode}; err != nil || job != "job.1_x" || !slices.Equal(ids, want) {
		t.Errorf("Identity = %q, %v, %v; want %q, %v, nil", job, ids, err, "job.1_x", want)
	}
	if got, want := c.Leaf.URIs[0].String(), "syncmodels://job/job.1_x/worker/5"; got != want {
		t.Errorf("URI = %s; want %s", got, want)
	}
	srv, err := ca.IssueServer("localhost")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := jobtls.Identity(srv.Leaf); !errors.Is(err, jobtls.ErrIdentity) {
		t.Errorf("Identity(server certificate) = %v; want ErrIdentity", err)
	}
	if _, _, err := jobtls.Identity(ca.Cert); !errors.Is(err, jobtls.ErrIdentity) {
		t.Errorf("Identity(CA certificate) = %v; want ErrIdentity", err)
	}
	// A certificate naming workers of two jobs.
	c.Leaf.URIs = append(c.Leaf.URIs, jobtls.WorkerURI("job-b", 1))
	if _, _, err := jobtls.Identity(c.Leaf); !errors.Is(err, jobtls.ErrIdentity) {
		t.Errorf("Identity(two jobs) = %v; want ErrIdentity", err)
	}
	for _, bad := range [][]transport.NodeID{nil, {-1}, {transport.MaxNode + 1}} {
		if _, err := ca.IssueWorker(bad...); !errors.Is(err, jobtls.ErrConfig) {
			t.Errorf("IssueWorker(%v) = %v; want ErrConfig", bad, err)
		}
	}
}

func TestToken(t *testing.T) {
	a, err := jobtls.NewToken("job-a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := jobtls.NewToken("job-a")
	if a == b || !strings.HasPrefix(a, "job-a.") || len(a) != len("job-a.")+43 {
		t.Errorf("tokens %q, %q; want two different job-a.<43 characters>", a, b)
	}
	if j, err := jobtls.TokenJob(a); err != nil || j != "job-a" {
		t.Errorf("TokenJob(%q) = %q, %v; want job-a", a, j, err)
	}
	for _, bad := range []string{"", "job-a", "job-a.short", ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "job a.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "job-a.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+A"} {
		if _, err := jobtls.TokenJob(bad); !errors.Is(err, jobtls.ErrIdentity) {
			t.Errorf("TokenJob(%q) = %v; want ErrIdentity", bad, err)
		}
	}
}

func TestBadArguments(t *testing.T) {
	for _, job := range []string{"", "-x", ".x", "a/b", "a b", "é", strings.Repeat("a", 64)} {
		if _, err := jobtls.NewCA(job); !errors.Is(err, jobtls.ErrConfig) || !strings.Contains(err.Error(), "job name") {
			t.Errorf("NewCA(%q) = %v; want ErrConfig naming the job", job, err)
		}
		if _, err := jobtls.NewToken(job); !errors.Is(err, jobtls.ErrConfig) {
			t.Errorf("NewToken(%q) = %v; want ErrConfig", job, err)
		}
	}
	ca := mustCA(t, "j")
	for _, hosts := range [][]string{nil, {"bad host"}, {"a..b"}, {"localhost", "x_y"}} {
		if _, err := ca.IssueServer(hosts...); !errors.Is(err, jobtls.ErrConfig) {
			t.Errorf("IssueServer(%q) = %v; want ErrConfig", hosts, err)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct {
		job     string
		workers int
		hosts   []string
	}{{"bad/job", 1, []string{"localhost"}}, {"j", -1, []string{"localhost"}}, {"j", 1 << 17, []string{"localhost"}}, {"j", 1, nil}, {"j", 1, []string{"no spaces"}}} {
		if err := jobtls.Create(dir, c.job, c.workers, c.hosts); !errors.Is(err, jobtls.ErrConfig) {
			t.Errorf("Create(%q, %d, %q) = %v; want ErrConfig", c.job, c.workers, c.hosts, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("refused Creates left %d files", len(ents))
	}
}

func TestCreateAndLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "job")
	if err := jobtls.Create(dir, "job-a", 3, []string{"127.0.0.1", "localhost"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		"ca.pem": 0o644, "ca-key.pem": 0o600, "server.pem": 0o644, "server-key.pem": 0o600, "token": 0o600,
		"worker-0.pem": 0o644, "worker-0-key.pem": 0o600, "worker-1.pem": 0o644, "worker-1-key.pem": 0o600,
		"worker-2.pem": 0o644, "worker-2-key.pem": 0o600,
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(want) {
		t.Errorf("Create wrote %d files; want %d (%v)", len(ents), len(want), ents)
	}
	for _, e := range ents {
		info, _ := e.Info()
		if m, ok := want[e.Name()]; !ok || info.Mode().Perm() != m {
			t.Errorf("%s: mode %v; want %v (expected: %v)", e.Name(), info.Mode().Perm(), m, ok)
		}
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v; want 0700", info.Mode().Perm())
	}
	if err := jobtls.Create(dir, "job-b", 1, []string{"localhost"}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create into %s = %v; want fs.ErrExist", dir, err)
	}

	srv, err := jobtls.LoadServer(dir)
	if err != nil {
		t.Fatal(err)
	}
	w1, err := jobtls.LoadWorker(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Job != "job-a" || w1.Job != "job-a" || srv.Token != w1.Token || !strings.HasPrefix(srv.Token, "job-a.") {
		t.Errorf("LoadServer, LoadWorker: jobs %q, %q, tokens %q, %q; want job-a and one token", srv.Job, w1.Job, srv.Token, w1.Token)
	}
	cli := w1.TLS.Clone()
	cli.ServerName = "localhost"
	if se, ce := handshake(t, srv.TLS, cli); se != nil || ce != nil {
		t.Errorf("handshake with loaded credentials: server %v, client %v", se, ce)
	}
	if _, err := jobtls.LoadWorker(dir, 3); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("LoadWorker(3) of 3 workers = %v; want fs.ErrNotExist", err)
	}

	// More workers later, from the CA on disk.
	ca, err := jobtls.LoadCA(dir)
	if err != nil || ca.Job != "job-a" {
		t.Fatalf("LoadCA = %v, %v", ca, err)
	}
	if err := ca.WriteWorker(dir, 7); err != nil {
		t.Fatal(err)
	}
	w7, err := jobtls.LoadWorker(dir, 7)
	if err != nil {
		t.Fatal(err)
	}
	cli = w7.TLS.Clone()
	cli.ServerName = "127.0.0.1"
	if se, ce := handshake(t, srv.TLS, cli); se != nil || ce != nil {
		t.Errorf("handshake of a worker added later: server %v, client %v", se, ce)
	}

	// Files that do not belong together are refused.
	copyFile(t, filepath.Join(dir, "worker-0.pem"), filepath.Join(dir, "worker-2.pem"))
	copyFile(t, filepath.Join(dir, "worker-0-key.pem"), filepath.Join(dir, "worker-2-key.pem"))
	if _, err := jobtls.LoadWorker(dir, 2); !errors.Is(err, jobtls.ErrIdentity) {
		t.Errorf("LoadWorker(2) with worker 0's certificate = %v; want ErrIdentity", err)
	}
	other := t.TempDir()
	if err := jobtls.Create(other, "job-b", 1, []string{"localhost"}); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(other, "token"), filepath.Join(dir, "token"))
	if _, err := jobtls.LoadServer(dir); !errors.Is(err, jobtls.ErrIdentity) || !strings.Contains(err.Error(), "job-b") {
		t.Errorf("LoadServer with job-b's token = %v; want ErrIdentity naming job-b", err)
	}
	copyFile(t, filepath.Join(other, "ca-key.pem"), filepath.Join(dir, "ca-key.pem"))
	if _, err := jobtls.LoadCA(dir); err == nil || !strings.Contains(err.Error(), "is not the key of") {
		t.Errorf("LoadCA with another CA's key = %v; want an error", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// FuzzTokenJob: TokenJob never panics, and what it accepts is
// <job>.<43 base64url characters> with a job NewToken accepts.
func FuzzTokenJob(f *testing.F) {
	tok, err := jobtls.NewToken("job-a")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{tok, "", ".", "a.b", "job-a." + strings.Repeat("_", 43), "x.y." + tok[6:]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		job, err := jobtls.TokenJob(s)
		if err != nil {
			if !errors.Is(err, jobtls.ErrIdentity) {
				t.Fatalf("TokenJob(%q) = %v; want ErrIdentity", s, err)
			}
			return
		}
		if _, err := jobtls.NewToken(job); err != nil || s != job+"."+s[len(job)+1:] || len(s)-len(job)-1 != 43 {
			t.Fatalf("TokenJob(%q) accepted job %q (NewToken: %v)", s, job, err)
		}
	})
}
