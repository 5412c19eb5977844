package consistency_test

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/syncmodels/syncmodels/consistency"
)

var update = flag.Bool("update", false, "rewrite the expected outputs in testdata/*.txt")

// TestScripts runs the interaction scripts in testdata/*.txt. A script is a
// list of blocks separated by blank lines:
//
//	# comment
//	command args...
//	----
//	expected output lines
//
// Commands:
//
//	new SPEC w1 w2 ... [batch=N]   a model (Parse's SPEC) with these members
//	start | stop                   feed EvStart / EvStop
//	commit wN [seq=S] [v=V] [from=B] [points=P]
//	                               commit the batch wN is computing; seq, v,
//	                               the first batch and the points default to
//	                               the correct values
//	progress wN points=P
//	batch wN [b=I] [n=N]           announce wN's next batch (or batch I);
//	                               n=N announces N batches in a row
//	tick DURATION                  feed EvTick at that time
//	interval DURATION              feed EvSetInterval
//	join wN | leave wN
//	held wN clock=C [i=I acc=A w=W] [entries=N mass=M]
//	                               record (not feed) what ISP worker wN holds
//	                               back after step C; without i, no checked entry
//	members                        print the members and version
//	check                          run Check on the trace so far
//	stats                          print CheckStats's applies and batches
//	trace                          print the trace
//
// The output of a command is the effects it caused, one per line, or the
// error. Run `go test -run Scripts -update` to rewrite the expected
// outputs after an intended change, and review the diff.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.txt scripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) { runScript(t, file) })
	}
}

type block struct {
	head []string // comments and the command
	cmd  string
	want []string
}

func runScript(t *testing.T, file string) {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	var b block
	inWant := false
	sc := bufio.NewScanner(strings.NewReader(string(text)))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t")
		switch {
		case line == "" && (b.cmd != "" || len(b.head) > 0):
			blocks = append(blocks, b)
			b, inWant = block{}, false
		case line == "":
		case inWant:
			b.want = append(b.want, line)
		case line == "----":
			inWant = true
		case strings.HasPrefix(line, "#"):
			b.head = append(b.head, line)
		default:
			if b.cmd != "" {
				t.Fatalf("%s: two commands in one block: %q and %q", file, b.cmd, line)
			}
			b.cmd = line
			b.head = append(b.head, line)
		}
	}
	if b.cmd != "" || len(b.head) > 0 {
		blocks = append(blocks, b)
	}

	var d *driver
	var out strings.Builder
	for i, b := range blocks {
		var got []string
		if b.cmd != "" {
			got = exec(t, &d, b.cmd)
		}
		if !*update && b.cmd != "" && strings.Join(got, "\n") != strings.Join(b.want, "\n") {
			t.Errorf("%s: %s:\ngot:\n\t%s\nwant:\n\t%s", file, b.cmd, strings.Join(got, "\n\t"), strings.Join(b.want, "\n\t"))
		}
		if i > 0 {
			out.WriteString("\n")
		}
		for _, h := range b.head {
			out.WriteString(h + "\n")
		}
		if b.cmd != "" {
			out.WriteString("----\n")
			for _, g := range got {
				out.WriteString(g + "\n")
			}
		}
	}
	if *update {
		if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func exec(t *testing.T, dp **driver, cmd string) []string {
	f := strings.Fields(cmd)
	args := map[string]string{}
	var pos []string
	for _, a := range f[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			args[k] = v
		} else {
			pos = append(pos, a)
		}
	}
	num := func(s string) int {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "w"))
		if err != nil {
			t.Fatalf("%q: bad number %q", cmd, s)
		}
		return n
	}
	worker := func() consistency.WorkerID {
		if len(pos) == 0 {
			t.Fatalf("%q: no worker", cmd)
		}
		return consistency.WorkerID(num(pos[0]))
	}
	lines := func(effs []consistency.Effect, err error) []string {
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		var s []string
		for _, e := range effs {
			s = append(s, e.String())
		}
		if len(s) == 0 {
			s = []string{"(no effects)"}
		}
		return s
	}
	if f[0] == "new" {
		spec, err := consistency.Parse(pos[0])
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		var ws []consistency.WorkerID
		for _, p := range pos[1:] {
			ws = append(ws, consistency.WorkerID(num(p)))
		}
		batch := 0
		if b, ok := args["batch"]; ok {
			batch = num(b)
		}
		d, err := newDriver(spec, ws, batch)
		if err != nil {
			return []string{"error: " + err.Error()}
		}
		*dp = d
		return []string{fmt.Sprintf("model %v members %v", d.m.Spec(), d.m.Members())}
	}
	d := *dp
	if d == nil {
		t.Fatalf("%q before new", cmd)
	}
	switch f[0] {
	case "start":
		return lines(d.step(consistency.Event{Kind: consistency.EvStart}))
	case "stop":
		return lines(d.step(consistency.Event{Kind: consistency.EvStop}))
	case "commit":
		w := worker()
		if len(args) == 0 {
			return lines(d.commit(w))
		}
		rel := d.comp[w]
		ev := consistency.Event{Kind: consistency.EvCommit, Worker: w, Seq: max(d.next[w], 1), Version: rel.Version, Points: 1, Batch: rel.Batch}
		if rel.Batches > 0 {
			ev.Points = rel.Budget
		}
		if s, ok := args["seq"]; ok {
			ev.Seq = uint64(num(s))
		}
		if v, ok := args["v"]; ok {
			ev.Version = consistency.Version(num(v))
		}
		if b, ok := args["from"]; ok {
			ev.Batch = uint64(num(b))
		}
		if p, ok := args["points"]; ok {
			ev.Points = num(p)
		}
		return lines(d.step(ev))
	case "progress":
		return lines(d.step(consistency.Event{Kind: consistency.EvProgress, Worker: worker(), Points: num(args["points"])}))
	case "batch":
		w := worker()
		if b, ok := args["b"]; ok {
			return lines(d.step(consistency.Event{Kind: consistency.EvBatchReady, Worker: w, Batch: uint64(num(b))}))
		}
		n := 1
		if s, ok := args["n"]; ok {
			n = num(s)
		}
		var out []string
		for range n {
			effs, err := d.announce(w)
			if l := lines(effs, err); len(l) != 1 || l[0] != "(no effects)" || n == 1 {
				out = append(out, l...)
			}
			if err != nil {
				break
			}
		}
		if len(out) == 0 {
			out = []string{"(no effects)"}
		}
		return out
	case "tick":
		at, err := time.ParseDuration(pos[0])
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		return lines(d.step(consistency.Event{Kind: consistency.EvTick, Now: at}))
	case "interval":
		iv, err := time.ParseDuration(pos[0])
		if err != nil {
			t.Fatalf("%q: %v", cmd, err)
		}
		return lines(d.step(consistency.Event{Kind: consistency.EvSetInterval, Interval: iv}))
	case "join":
		return lines(d.step(consistency.Event{Kind: consistency.EvJoin, Worker: worker()}))
	case "leave":
		return lines(d.step(consistency.Event{Kind: consistency.EvLeave, Worker: worker()}))
	case "held":
		h := consistency.Held{Worst: -1, Entries: 1}
		fl := func(k string) float64 {
			v, err := strconv.ParseFloat(args[k], 64)
			if err != nil {
				t.Fatalf("%q: bad %s=%q", cmd, k, args[k])
			}
			return v
		}
		if _, ok := args["i"]; ok {
			h.Worst, h.Acc, h.Replica = num(args["i"]), fl("acc"), fl("w")
			h.Mass = math.Abs(h.Acc)
		}
		if _, ok := args["entries"]; ok {
			h.Entries = num(args["entries"])
		}
		if _, ok := args["mass"]; ok {
			h.Mass = fl("mass")
		}
		d.record(consistency.Record{Kind: consistency.RecHeld, Worker: worker(), Clock: uint64(num(args["clock"])), Held: &h})
		return []string{"recorded"}
	case "members":
		return []string{fmt.Sprintf("members %v version %d", d.m.Members(), d.m.Version())}
	case "check":
		if err := consistency.Check(&d.trace); err != nil {
			return strings.Split(err.Error(), "\n")
		}
		return []string{"ok"}
	case "stats":
		st, _ := consistency.CheckStats(&d.trace)
		out := []string{fmt.Sprintf("applies %d", st.Applies)}
		for _, u := range st.Batches {
			out = append(out, fmt.Sprintf("w%d announced=%d used=%d unused=%d", u.Worker, u.Announced, u.Used, u.Unused))
		}
		return out
	case "trace":
		var sb strings.Builder
		if _, err := d.trace.WriteTo(&sb); err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n")
	}
	t.Fatalf("unknown command %q", cmd)
	return nil
}
