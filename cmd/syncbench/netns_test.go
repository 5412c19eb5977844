package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLongNetnsTLS runs the default compare scenario (16 workers, every
// default sync model) with the coordinator and the workers as separate
// syncbench processes in two Linux network namespaces joined by a veth
// pair, over mutual TLS 1.3 and the job's token: docs/grpc.md's two-host
// run, on one machine. The coordinator listens on 10.77.0.1 in one
// namespace; its certificate names 10.77.0.1 only (syncbench tls -hosts);
// each worker runs in the other namespace, whose only route is the veth,
// and gets a directory with just ca.pem, token and its own certificate
// and key, as a worker host would. It needs root and the ip tool (it
// skips without them), and takes about 30 s on the 2-core reference
// machine: a long check (SYNCMODELS_LONG=1).
func TestLongNetnsTLS(t *testing.T) {
	long(t)
	bin, ns := netnsSetup(t)
	const workers = 16
	dir := t.TempDir()
	job := filepath.Join(dir, "job")
	if out, err := exec.Command(bin, "tls", "-dir", job, "-workers", strconv.Itoa(workers), "-hosts", netnsCoordAddr).CombinedOutput(); err != nil {
		t.Fatalf("syncbench tls: %v\n%s", err, out)
	}
	// What a worker host gets: four files, not the CA's key, not the
	// server's, not the other workers'.
	workerDirs := make([]string, workers)
	for i := range workers {
		workerDirs[i] = filepath.Join(dir, "worker-host-"+strconv.Itoa(i))
		if err := os.Mkdir(workerDirs[i], 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"ca.pem", "token", fmt.Sprintf("worker-%d.pem", i), fmt.Sprintf("worker-%d-key.pem", i)} {
			b, err := os.ReadFile(filepath.Join(job, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(workerDirs[i], f), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := ns.vethBytes(t)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	listen := netnsCoordAddr + ":7070"
	var cout, cerr bytes.Buffer
	coord := ns.command(ctx, ns.coord, bin, "coordinator", "-listen", listen, "-tls-dir", job, "-json")
	coord.Stdout, coord.Stderr = &cout, &cerr
	if err := coord.Start(); err != nil {
		t.Fatal(err)
	}
	type proc struct {
		cmd *exec.Cmd
		out *bytes.Buffer
	}
	procs := make([]proc, workers)
	for i := range workers {
		// Workers may start before the coordinator listens: they retry
		// for -wait.
		w := ns.command(ctx, ns.worker, bin, "worker", "-coordinator", listen, "-id", strconv.Itoa(i), "-tls-dir", workerDirs[i], "-wait", "1m")
		procs[i] = proc{cmd: w, out: &bytes.Buffer{}}
		w.Stdout, w.Stderr = procs[i].out, procs[i].out
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if err := coord.Wait(); err != nil {
		t.Errorf("coordinator: %v\n%s", err, cerr.String())
	}
	for i, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Errorf("worker %d: %v\n%s", i, err, p.out)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	var c compareJSON
	if err := json.Unmarshal(cout.Bytes(), &c); err != nil {
		t.Fatalf("the coordinator's output is not JSON: %v\n%s", err, cout.String())
	}
	if c.Scenario.Clock != "grpc" || c.Scenario.Workers != workers || len(c.Runs) != 5 {
		t.Fatalf("clock %q, %d workers, %d runs; want grpc, %d workers and the 5 default sync models", c.Scenario.Clock, c.Scenario.Workers, len(c.Runs), workers)
	}
	var sent int64
	for _, r := range c.Runs {
		if r.Check != "ok" || r.LostDeltas != 0 || r.DuplicateApplies != 0 || r.Versions == 0 || r.RefusedStreams == nil || *r.RefusedStreams != 0 {
			t.Errorf("%s: check %q, %d deltas lost, %d applied twice, %d versions, refused streams %v; want ok, 0, 0, > 0, 0",
				r.Sync, r.Check, r.LostDeltas, r.DuplicateApplies, r.Versions, r.RefusedStreams)
		}
		sent += r.BytesSent
	}
	for i, p := range procs {
		if !strings.Contains(p.out.String(), fmt.Sprintf("run %d:", len(c.Runs)-1)) {
			t.Errorf("worker %d did not report the last run:\n%s", i, p.out)
		}
	}
	// The messages crossed the veth: the only way between the
	// namespaces. Its byte counters (both directions, with TLS and HTTP/2
	// framing) hold at least the messages' encoded bytes.
	after := ns.vethBytes(t)
	if moved := after - before; moved < sent {
		t.Errorf("the worker namespace's veth moved %d bytes; the runs sent %d bytes of messages", moved, sent)
	}
	t.Logf("%d runs, %d bytes of messages, %d bytes over the veth; coordinator:\n%s", len(c.Runs), sent, after-before, cerr.String())
}

// netnsCoordAddr is the coordinator's address on the veth; the worker
// namespace's end is netnsWorkerAddr.
const (
	netnsCoordAddr  = "10.77.0.1"
	netnsWorkerAddr = "10.77.0.2"
)

// netns is a pair of network namespaces joined by a veth pair.
type netns struct {
	coord, worker string // namespace names
	wdev          string // the veth end in worker
}

// command returns a command that runs name with args in namespace ns,
// killed when ctx ends.
func (n *netns) command(ctx context.Context, ns, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// vethBytes returns the bytes received and sent by the worker's veth end.
func (n *netns) vethBytes(t *testing.T) int64 {
	t.Helper()
	out, err := exec.Command("ip", "-n", n.worker, "-s", "-j", "link", "show", "dev", n.wdev).Output()
	if err != nil {
		t.Fatalf("ip -s link show: %v", err)
	}
	var links []struct {
		Stats struct {
			RX struct {
				Bytes int64 `json:"bytes"`
			} `json:"rx"`
			TX struct {
				Bytes int64 `json:"bytes"`
			} `json:"tx"`
		} `json:"stats64"`
	}
	if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
		t.Fatalf("ip -s -j link show: %v: %s", err, out)
	}
	return links[0].Stats.RX.Bytes + links[0].Stats.TX.Bytes
}

// netnsSetup builds syncbench into a temporary directory and creates two
// network namespaces joined by a veth pair (netnsCoordAddr/24 on one end,
// netnsWorkerAddr/24 on the other), removed when the test ends, failed
// or not. It skips the test without root, the ip tool, the go tool or
// the kernel's permission to create namespaces.
func netnsSetup(t *testing.T) (bin string, n *netns) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: it creates network namespaces and a veth pair (ip netns)")
	}
	for _, tool := range []string{"ip", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs the %s tool: %v", tool, err)
		}
	}
	bin = filepath.Join(t.TempDir(), "syncbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	id := strconv.Itoa(os.Getpid() % 100000)
	n = &netns{coord: "syncbench-c" + id, worker: "syncbench-w" + id, wdev: "sbw" + id}
	cdev := "sbc" + id
	ip := func(args ...string) error {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
		return nil
	}
	for _, ns := range []string{n.coord, n.worker} {
		if err := ip("netns", "add", ns); err != nil {
			t.Skipf("cannot create a network namespace: %v", err)
		}
		t.Cleanup(func() {
			if err := ip("netns", "del", ns); err != nil {
				t.Errorf("removing the namespace: %v", err)
			}
		})
	}
	for _, args := range [][]string{
		{"link", "add", cdev, "netns", n.coord, "type", "veth", "peer", "name", n.wdev, "netns", n.worker},
		{"-n", n.coord, "addr", "add", netnsCoordAddr + "/24", "dev", cdev},
		{"-n", n.worker, "addr", "add", netnsWorkerAddr + "/24", "dev", n.wdev},
		{"-n", n.coord, "link", "set", cdev, "up"},
		{"-n", n.worker, "link", "set", n.wdev, "up"},
		{"-n", n.coord, "link", "set", "lo", "up"},
		{"-n", n.worker, "link", "set", "lo", "up"},
	} {
		if err := ip(args...); err != nil {
			t.Fatal(err) // the namespaces, and with them the veth, are removed
		}
	}
	return bin, n
}
