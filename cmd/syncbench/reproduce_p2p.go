package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/algorithms/logreg"
	"github.com/syncmodels/syncmodels/algorithms/optim"
	"github.com/syncmodels/syncmodels/cost"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/filter"
	"github.com/syncmodels/syncmodels/latency"
	"github.com/syncmodels/syncmodels/p2p"
)

// `syncbench reproduce p2p` reruns the evaluation of the P2P serverless
// paper (Barrak, Trabelsi, Jaafar and Petrillo, "Exploring the Impact of
// Serverless Computing on Peer To Peer Training Machine Learning", §V)
// with package p2p, in virtual time over a real store (in process, or
// Redis with -exchange):
//
//   - Fig. 3 and Tables II, III: the time to compute a peer's gradients
//     with and without functions, for 4, 8 and 12 peers and batches of
//     64 to 1024, and its cost (the paper's Eq. 1 and 2, and our bill);
//   - Fig. 4: computation and communication per epoch as peers grow,
//     with a VGG11-sized and a MobileNet-sized gradient;
//   - Fig. 5: QSGD's bytes and communication time, and its effect on
//     convergence;
//   - Fig. 6: synchronous against asynchronous training.
//
// The arithmetic is logistic regression on synthetic data (the paper
// trains CNNs with PyTorch); the times come from p2p.PaperVGG11, the cost
// model fitted to Tables II and III. Every run's trace passes p2p.Check.

// p2pScale sizes the report: the paper's (full) or -quick's.
type p2pScale struct {
	// points and test are the training and test set sizes, dim the
	// features.
	points, test, dim int
	// epochs is Fig. 6's length; commEpochs the length of the timing
	// runs (Figs. 3 to 5).
	epochs, commEpochs int
	seeds              int
}

var (
	// p2pFull: MNIST's 60,000 training points, so that four peers have
	// Table II's batches (15 of 1024 … 235 of 64).
	p2pFull  = p2pScale{points: 60000, test: 10000, dim: 100, epochs: 30, commEpochs: 2, seeds: 5}
	p2pQuick = p2pScale{points: 6000, test: 1000, dim: 20, epochs: 3, commEpochs: 1, seeds: 2}
)

// The paper's settings.
var (
	p2pPeers   = []int{4, 8, 12}           // §IV-C: 4 to 12 peers, 4 at a time
	p2pBatches = []int{64, 128, 512, 1024} // Fig. 3, Tables II and III
)

const (
	// p2pFig6Batch and p2pLR are Fig. 6's batch size and learning rate
	// (§V-D: "a batch size of 64, a learning rate of 0.001, and the
	// optimizer SGD").
	p2pFig6Batch = 64
	p2pLR        = 0.001
	// p2pLink is the peers' assumed link to the store, bytes/s: 1 Gbit/s
	// (the paper does not give its instances' bandwidth).
	p2pLink = 125e6
	// p2pRTT is an assumed round trip to the store (Amazon MQ or Redis in
	// the same region).
	p2pRTT = 2 * time.Millisecond
	// The gradients the paper sends: float32 (its code's numpy
	// tobytes()) of VGG11's 132.9 million parameters and MobileNet V3
	// Small's 2.5 million (§IV-B).
	p2pVGG11Bytes  = 132.9e6 * 4
	p2pMobileBytes = 2.5e6 * 4
	// p2pMobileFactor scales PaperVGG11's compute times to MobileNet V3
	// Small: Table I's per-batch gradient times, 29.72 s against
	// 104.37 s on MNIST (different instances, t2.medium and t2.large: an
	// approximation).
	p2pMobileFactor = 29.72 / 104.37
)

// p2pFlags are the flags of `syncbench reproduce p2p`.
type p2pFlags struct {
	out      string
	quick    bool
	seed     uint64
	seeds    int
	exchange string
	fmnist   string
	args     []string
}

func (f *p2pFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.out, "out", "docs/reproduce", "directory of the report: writes OUT/p2p.md and OUT/p2p/*.png, runs.csv")
	fs.BoolVar(&f.quick, "quick", false, "a small job (6,000 points, 3 epochs, 2 seeds; seconds): checks the pipeline, the numbers mean little")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed: the data; run i of a setting uses seed+i (shuffle, store latencies, QSGD draws)")
	fs.IntVar(&f.seeds, "seeds", 0, "runs (seeds) per setting of Figs. 5 and 6; 0 = 5, 2 with -quick")
	fs.StringVar(&f.fmnist, "fashion-mnist", dataset.FashionMNISTDir, "Fashion-MNIST directory (the data of every run; -quick takes its first images); \"\" or a missing directory: synthetic data")
	fs.StringVar(&f.exchange, "exchange", "memory", "the store the peers exchange through: memory (in process) or redis://HOST:PORT; same seed, same report")
}

func (f *p2pFlags) check() error {
	if f.seeds < 0 {
		return fmt.Errorf("-seeds %d: want ≥ 1 (0 = the default)", f.seeds)
	}
	if _, _, err := p2p.OpenExchange(f.exchange, "check"); err != nil {
		return fmt.Errorf("-exchange %q: want memory or redis://HOST:PORT", f.exchange)
	}
	return nil
}

func reproduceP2P(args []string, stdout, stderr io.Writer) int {
	var f p2pFlags
	fs := flag.NewFlagSet("syncbench reproduce p2p", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	f.args = args
	return reportCommand("p2p", fs, args, f.check, &f.out, func(ctx context.Context, start time.Time) error {
		s := p2pFull
		if f.quick {
			s = p2pQuick
		}
		if f.seeds > 0 {
			s.seeds = f.seeds
		}
		p, err := runP2P(ctx, &f, s, stderr)
		if err != nil {
			return err
		}
		return writeP2PReport(&f, p, time.Since(start))
	}, stdout, stderr)
}

// p2pModel is the network whose times a run takes: VGG11 or MobileNet.
type p2pModel struct {
	name  string
	bytes float64 // its gradient, as the paper sends it
	// compute scales PaperVGG11's computation times.
	compute float64
}

var (
	p2pVGG11  = p2pModel{"VGG11", p2pVGG11Bytes, 1}
	p2pMobile = p2pModel{"MobileNet V3 Small", p2pMobileBytes, p2pMobileFactor}
)

// p2pCell is a setting; its runs differ in their seed only.
type p2pCell struct {
	fig        string // "3" (and 4, 5), "4", "6"
	model      p2pModel
	peers      int
	batch      int // the gradient's batch size B (cost model)
	serverless bool
	mode       p2p.Mode
	qsgd       bool
	runs       []p2pRun // by seed index
}

func (c *p2pCell) key() string {
	return fmt.Sprintf("fig%s %s P=%d B=%d serverless=%v %v qsgd=%v", c.fig, c.model.name, c.peers, c.batch, c.serverless, c.mode, c.qsgd)
}

// p2pRun is what the report keeps of a run.
type p2pRun struct {
	seed                    uint64
	time                    time.Duration
	fastest                 time.Duration // the first peer to finish
	compute, comm, wait     time.Duration // per epoch, mean peer
	written, read, reqs     int64
	billVM, billFaaS        float64 // $ for the run, all peers
	paperCost               float64 // Eq. 1 or 2 per peer and epoch, on our computation time
	epochs                  float64
	acc                     []float64 // test accuracy after each epoch (Fig. 6)
	obj                     []float64
	staleness               map[int]int
	unread, overwritten     int
	losses, averages, reads int
}

// p2pPlan is the report's data and settings.
type p2pPlan struct {
	s         p2pScale
	seed      uint64
	alg       algorithms.Algorithm
	test      *dataset.Dense
	gradBytes int    // our float64 gradient's encoding, for the bandwidth scaling
	data      string // describes the data
	cells     []*p2pCell
	byKey     map[string]*p2pCell
}

func (p *p2pPlan) cell(c p2pCell) *p2pCell {
	if old, ok := p.byKey[c.key()]; ok {
		return old
	}
	cc := &c
	p.byKey[c.key()] = cc
	p.cells = append(p.cells, cc)
	return cc
}

// timing returns the cell of a timing run (Figs. 3 to 5): one gradient
// over the whole shard per round, as Algorithm 1.
func (p *p2pPlan) timing(m p2pModel, peers, batch int, serverless, qsgd bool) *p2pCell {
	return p.cell(p2pCell{fig: "3", model: m, peers: peers, batch: batch, serverless: serverless, mode: p2p.Sync, qsgd: qsgd})
}

// fig6 returns the cell of a convergence run.
func (p *p2pPlan) fig6(mode p2p.Mode, qsgd bool) *p2pCell {
	return p.cell(p2pCell{fig: "6", model: p2pMobile, peers: 4, batch: p2pFig6Batch, mode: mode, qsgd: qsgd})
}

func (p *p2pPlan) plan() {
	for _, peers := range p2pPeers {
		for _, b := range p2pBatches {
			for _, sv := range []bool{false, true} {
				p.timing(p2pVGG11, peers, b, sv, false)
			}
		}
		p.timing(p2pMobile, peers, 1024, false, false)
	}
	for _, q := range []bool{false, true} {
		p.timing(p2pVGG11, 4, 1024, false, q)
		for _, mode := range []p2p.Mode{p2p.Sync, p2p.Async} {
			p.fig6(mode, q)
		}
	}
}

// seeds is how many runs cell c gets: one for a timing run without QSGD
// (nothing random changes its times but the latencies, which are off),
// the scale's for the others.
func (p *p2pPlan) seeds(c *p2pCell) int {
	if c.fig == "3" && !c.qsgd {
		return 1
	}
	return p.s.seeds
}

// load builds the workload: logistic regression on Fashion-MNIST's first
// s.points training images (classes 0–4, tops and trousers and coats,
// against 5–9, shoes and shirts and bags), its first s.test test images
// held out for accuracy; or, without Fashion-MNIST in dir, on synthetic
// logistic data of s.dim features, the last s.test points held out.
func (p *p2pPlan) load(dir string) error {
	var train, test *dataset.Dense
	if dir != "" {
		if _, err := os.Stat(dir); err != nil {
			p.data = fmt.Sprintf("synthetic logistic data (%d + %d points × %d features): Fashion-MNIST not found (%s: %v; `apt-get install dataset-fashion-mnist`)",
				p.s.points, p.s.test, p.s.dim, dir, errors.Unwrap(err))
			dir = ""
		}
	}
	if dir != "" {
		tr, te, err := dataset.FashionMNIST(dir)
		if err != nil {
			return err
		}
		cut := func(d *dataset.Dense, n int) *dataset.Dense {
			n = min(n, d.N)
			y := make([]float64, n)
			for i := range y {
				if d.Labels[i] < 5 {
					y[i] = 1
				}
			}
			return &dataset.Dense{N: n, D: d.D, X: d.X[:n*d.D], Labels: y}
		}
		train, test = cut(tr, p.s.points), cut(te, p.s.test)
		p.data = fmt.Sprintf("Fashion-MNIST (%s): the first %d training and %d test images, 784 pixels in [0, 1], label 1 for classes 0–4 (T-shirt/top, trouser, pullover, dress, coat), 0 for 5–9", dir, train.N, test.N)
	} else {
		if p.data == "" {
			p.data = fmt.Sprintf("synthetic logistic data (%d + %d points × %d features; -fashion-mnist \"\")", p.s.points, p.s.test, p.s.dim)
		}
		all, _ := dataset.Logistic(mrand.New(mrand.NewPCG(p.seed, 0x9292)), p.s.points+p.s.test, p.s.dim)
		d := p.s.dim
		train = &dataset.Dense{N: p.s.points, D: d, X: all.X[:p.s.points*d], Labels: all.Labels[:p.s.points]}
		test = &dataset.Dense{N: p.s.test, D: d, X: all.X[p.s.points*d:], Labels: all.Labels[p.s.points:]}
	}
	p.test = test
	alg, err := logreg.NewDense(train, logreg.Config{Lambda: 1e-4, Optim: optim.Config{Method: optim.SGD, LR: p2pLR}})
	if err != nil {
		return err
	}
	p.alg = alg
	p.gradBytes = 8 * (train.D + 1)
	return nil
}

// accuracy is the test accuracy of θ.
func (p *p2pPlan) accuracy(theta []float64) float64 {
	ok := 0
	for i := range p.test.N {
		if (logreg.Prob(theta, p.test.Row(i)) >= 0.5) == (p.test.Labels[i] == 1) {
			ok++
		}
	}
	return float64(ok) / float64(p.test.N)
}

// bandwidth is the bandwidth at which our gradient takes as long to move
// as model m's does on the link: a VGG11 gradient is 532 MB, ours a few
// hundred bytes, so the bytes we move count for theirs.
func (p *p2pPlan) bandwidth(m p2pModel) float64 {
	return p2pLink * float64(p.gradBytes) / m.bytes
}

// config is the p2p.Config of run i of cell c.
func (p *p2pPlan) config(c *p2pCell, i int) p2p.Config {
	cm := p2p.PaperVGG11(c.batch, c.serverless, p2pRTT, p.bandwidth(c.model))
	cm.PerPoint = time.Duration(float64(cm.PerPoint) * c.model.compute)
	cm.BatchOverhead = time.Duration(float64(cm.BatchOverhead) * c.model.compute)
	cfg := p2p.Config{Alg: p.alg, Peers: c.peers, Mode: c.mode, Seed: p.seed + uint64(i), Shuffle: true, Job: 1, Cost: cm}
	if c.qsgd {
		cfg.QSGD = &filter.QSGD{}
	}
	shard := p.s.points / c.peers
	if c.fig == "6" {
		// Mini-batch rounds of 64 points, one slower peer, store
		// latencies: the timing that makes asynchronous peers drift.
		cfg.Batch = p2pFig6Batch
		perEpoch := (shard + p2pFig6Batch - 1) / p2pFig6Batch
		cfg.Rounds = p.s.epochs * perEpoch
		cfg.Eval = perEpoch
		cfg.Accuracy = p.accuracy
		cfg.Cost.Latency = latency.Dist{Median: p2pRTT, Sigma: 1}
		cfg.Cost.Slow = make([]p2p.Slowdown, c.peers)
		cfg.Cost.Slow[c.peers-1] = p2p.Slowdown{Compute: 1.5}
		return cfg
	}
	cfg.Rounds = p.s.commEpochs
	return cfg
}

// runP2P plans the cells and runs every run, GOMAXPROCS at a time.
func runP2P(ctx context.Context, f *p2pFlags, s p2pScale, stderr io.Writer) (*p2pPlan, error) {
	p := &p2pPlan{s: s, seed: f.seed, byKey: map[string]*p2pCell{}}
	if err := p.load(f.fmnist); err != nil {
		return nil, err
	}
	p.plan()
	type slot struct {
		c    *p2pCell
		i, k int // run i of cell c, job k
	}
	var jobs []slot
	for _, c := range p.cells {
		c.runs = make([]p2pRun, p.seeds(c))
		for i := range c.runs {
			jobs = append(jobs, slot{c, i, len(jobs)})
		}
	}
	nonce := make([]byte, 4)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	pr := &progress{w: stderr, prefix: "syncbench reproduce p2p", total: len(jobs)}
	err := runParallel(ctx, jobs, func(ctx context.Context, j slot) error {
		start := time.Now()
		// A namespace of its own per run and invocation: the store may
		// hold an earlier invocation's.
		ns := fmt.Sprintf("p2p-%s-%d", hex.EncodeToString(nonce), j.k)
		r, err := p.run(ctx, f.exchange, ns, j.c, j.i)
		if err != nil {
			return fmt.Errorf("%s seed %d: %w", j.c.key(), p.seed+uint64(j.i), err)
		}
		j.c.runs[j.i] = r
		pr.step("%s seed %d: %.1f s", j.c.key(), r.seed, time.Since(start).Seconds())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// run runs run i of cell c on the store spec in namespace ns, checks its
// trace and keeps what the report needs.
func (p *p2pPlan) run(ctx context.Context, spec, ns string, c *p2pCell, i int) (p2pRun, error) {
	open, _, err := p2p.OpenExchange(spec, ns)
	if err != nil {
		return p2pRun{}, err
	}
	defer cleanRedis(spec, ns)
	cfg := p.config(c, i)
	res, err := p2p.Run(ctx, cfg, open)
	if err != nil {
		return p2pRun{}, err
	}
	st, err := p2p.Check(res.Trace)
	if err != nil {
		return p2pRun{}, err
	}
	r := p2pRun{seed: cfg.Seed, time: res.Time, epochs: res.Epochs, staleness: st.Staleness, averages: st.Averages, reads: st.Reads}
	r.compute, r.comm, r.wait = res.PerEpoch()
	r.written, r.read, r.reqs = res.Totals()
	for _, u := range st.Unread {
		r.unread++
		if u.Overwritten {
			r.overwritten++
		}
	}
	r.fastest = res.Time
	for _, pe := range res.Peer {
		r.losses += pe.Losses
		r.fastest = min(r.fastest, pe.Finished)
	}
	instance := p2p.T2Large
	if c.serverless {
		instance = p2p.T2Small
	}
	bill, err := res.Bill(p2p.Prices{Instance: instance})
	if err != nil {
		return p2pRun{}, err
	}
	r.billVM, r.billFaaS = bill.ByKind(cost.VM), bill.ByKind(cost.FaaS)
	batches := 0
	if c.serverless {
		batches, _ = cfg.Cost.Batches(p.s.points / c.peers)
	}
	r.paperCost = p2p.PaperCost(r.compute, batches, p2p.LambdaPrice(p2p.PaperLambdaMemory(c.batch)), instance)
	for _, pt := range res.Curve {
		r.acc = append(r.acc, pt.Accuracy)
		r.obj = append(r.obj, pt.Objective)
	}
	return r, nil
}

// cleanRedis deletes namespace ns's keys from the Redis at spec, best
// effort (redisx keeps them under "syncmodels:{ns}:").
func cleanRedis(spec, ns string) {
	if !strings.HasPrefix(spec, "redis") {
		return
	}
	opts, err := redis.ParseURL(spec)
	if err != nil {
		return
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	iter := c.Scan(ctx, 0, "syncmodels:{"+ns+"}:*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		c.Del(ctx, keys[:n]...)
		keys = keys[n:]
	}
}
