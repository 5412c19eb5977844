package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// higgsLike returns n lines in the HIGGS layout: a 0/1 label then 28
// float32 features, each written like the real file (float32 values printed
// with "%.18e", e.g. 8.692932128906250000e-01), ~ 700 bytes a line.
func higgsLike(n int) []byte {
	rng := newRNG(1)
	var b []byte
	for range n {
		b = strconv.AppendFloat(b, float64(rng.IntN(2)), 'e', 18, 64)
		for range 28 {
			b = append(b, ',')
			b = strconv.AppendFloat(b, float64(float32(rng.NormFloat64())), 'e', 18, 64)
		}
		b = append(b, '\n')
	}
	return b
}

// libsvmLike returns n LIBSVM lines of nnz features in [1, d].
func libsvmLike(n, d, nnz int) []byte {
	m, _ := SparseLogistic(newRNG(2), n, d, nnz)
	var b []byte
	for i := range m.N {
		b = strconv.AppendFloat(b, 2*m.Labels[i]-1, 'g', -1, 64)
		cols, vals := m.Row(i)
		for k, c := range cols {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(c)+1, 10)
			b = append(b, ':')
			b = strconv.AppendFloat(b, vals[k], 'g', 6, 64)
		}
		b = append(b, '\n')
	}
	return b
}

// movielensLike returns n ratings.dat lines.
func movielensLike(n int) []byte {
	r := LowRankRatings(newRNG(3), 6040, 3706, 5, n, 1)
	var b []byte
	for k := range r.Value {
		b = fmt.Appendf(b, "%d::%d::%d::%d\n", r.User[k]+1, r.Item[k]+1, int(r.Value[k]+0.5), 978300760+k)
	}
	return b
}

// BenchmarkParseCSV parses HIGGS-like text, raw and gzipped, sequentially
// (workers=1, the baseline) and on GOMAXPROCS goroutines. MB/s counts
// uncompressed bytes.
func BenchmarkParseCSV(b *testing.B) {
	const lines = 20000
	data := higgsLike(lines)
	for _, comp := range []string{"raw", "gzip"} {
		in := data
		if comp == "gzip" {
			in = gz(data)
		}
		for _, workers := range []int{1, defaultWorkers()} {
			b.Run(fmt.Sprintf("higgs/lines=%d/%s/workers=%d", lines, comp, workers), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := parseCSV(bytes.NewReader(in), "bench", CSVOptions{}, workers, chunkSize); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
			})
		}
	}
}

// BenchmarkParseLIBSVM parses hashed-feature-style LIBSVM text.
func BenchmarkParseLIBSVM(b *testing.B) {
	data := libsvmLike(20000, 1<<20, 40)
	for _, workers := range []int{1, defaultWorkers()} {
		b.Run(fmt.Sprintf("lines=20000/nnz=40/workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseLIBSVM(bytes.NewReader(data), "bench", LIBSVMOptions{}, workers, chunkSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseMovieLens(b *testing.B) {
	data := movielensLike(200000)
	b.Run("ratings=200000", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ParseMovieLens(bytes.NewReader(data), "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkParseIDXImages(b *testing.B) {
	raw := idxBytes(idxImagesMagic, []uint32{10000, 28, 28}, noise(10000*784))
	for _, name := range []string{"raw", "gzip"} {
		in := raw
		if name == "gzip" {
			in = gz(raw)
		}
		b.Run("images=10000/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := ParseIDXImages(bytes.NewReader(in), "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFashionMNIST(b *testing.B) {
	if _, err := os.Stat(filepath.Join(FashionMNISTDir, "train-images-idx3-ubyte.gz")); err != nil {
		b.Skipf("Fashion-MNIST not installed in %s: %v", FashionMNISTDir, err)
	}
	for b.Loop() {
		if _, _, err := FashionMNIST(FashionMNISTDir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkShard(b *testing.B) {
	for _, n := range []int{1e4, 1e6} {
		b.Run(fmt.Sprintf("n=%d/seeded", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				Shard(n, 16, rng)
			}
		})
	}
}

// BenchmarkParseFloat compares parseFinite with plain strconv.ParseFloat
// (the baseline) on the fields of HIGGS-like lines.
func BenchmarkParseFloat(b *testing.B) {
	// exact: values of the form k/1024 printed with "%.18e", whose digits end
	// in zeros, as quantized features of real files do.
	var exact []byte
	for i := range 29 * 200 {
		exact = strconv.AppendFloat(exact, float64(i%4096-2048)/1024, 'e', 18, 64)
		exact = append(exact, ',')
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"higgs", higgsLike(200)}, {"exact", exact}} {
		fields := bytes.FieldsFunc(in.data, func(r rune) bool { return r == ',' || r == '\n' })
		size := 0
		for _, f := range fields {
			size += len(f)
		}
		b.Run(in.name, func(b *testing.B) { benchmarkParseFloat(b, fields, size) })
	}
}

func benchmarkParseFloat(b *testing.B, fields [][]byte, size int) {
	b.Run("strconv", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, f := range fields {
				if _, err := strconv.ParseFloat(string(f), 64); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fields)), "ns/value")
	})
	b.Run("parseFinite", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			for _, f := range fields {
				if _, msg := parseFinite(f); msg != "" {
					b.Fatal(msg)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fields)), "ns/value")
	})
}
