package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
)

// IDX magic numbers: 0x08 is the unsigned-byte element type, the low byte
// the number of dimensions.
const (
	idxImagesMagic = 0x00000803
	idxLabelsMagic = 0x00000801
)

// FashionMNISTDir is where the Debian package dataset-fashion-mnist installs
// the Fashion-MNIST files.
const FashionMNISTDir = "/usr/share/datasets/fashion-mnist"

// maxInitialValues caps the capacity allocated up front from an IDX header
// whose data size cannot be checked against the file size (compressed or
// unsized input). Beyond it, storage grows only as data actually arrives.
const maxInitialValues = 1 << 20

// idxChunk is the number of data bytes converted per read.
const idxChunk = 64 << 10

// ReadIDXImages reads an idx3 unsigned-byte image file (magic 0x00000803),
// such as MNIST's train-images-idx3-ubyte, raw or gzip- or bzip2-compressed
// (detected by magic bytes). It returns an N×(rows*cols) Dense with pixel
// values v/255 in [0, 1] and nil Labels.
func ReadIDXImages(path string) (*Dense, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseIDXImages(f, path, size)
}

// ParseIDXImages is ReadIDXImages on a reader; name is used in errors.
// When r has a Len() int method (bytes.Reader, strings.Reader) the header
// is checked against the bytes remaining.
func ParseIDXImages(r io.Reader, name string) (*Dense, error) {
	return parseIDXImages(r, name, readerSize(r))
}

// ReadIDXLabels reads an idx1 unsigned-byte label file (magic 0x00000801),
// such as MNIST's train-labels-idx1-ubyte, raw or compressed. Each label is
// the byte value as a float64.
func ReadIDXLabels(path string) ([]float64, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseIDXLabels(f, path, size)
}

// ParseIDXLabels is ReadIDXLabels on a reader; name is used in errors.
func ParseIDXLabels(r io.Reader, name string) ([]float64, error) {
	return parseIDXLabels(r, name, readerSize(r))
}

// LoadIDX reads an image file and, unless labels is "", the matching label
// file, and returns the images with their labels. The two files must hold
// the same number of records.
func LoadIDX(images, labels string) (*Dense, error) {
	m, err := ReadIDXImages(images)
	if err != nil {
		return nil, err
	}
	if labels == "" {
		return m, nil
	}
	y, err := ReadIDXLabels(labels)
	if err != nil {
		return nil, err
	}
	if len(y) != m.N {
		return nil, &ParseError{File: labels, Field: "header",
			Msg: fmt.Sprintf("%d labels for %d images in %s", len(y), m.N, images)}
	}
	m.Labels = y
	return m, nil
}

// FashionMNIST reads the Fashion-MNIST training (60000 images) and test
// (10000 images) sets from dir, which holds the four standard files
// train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
// t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz (or the same names
// without .gz). Images are 28×28, so D = 784; labels are 0..9. Pass
// FashionMNISTDir for the Debian-installed copy. The MNIST digits use the
// same file names, so this reads an MNIST directory too.
func FashionMNIST(dir string) (train, test *Dense, err error) {
	find := func(base string) string {
		p := filepath.Join(dir, base)
		if _, err := os.Stat(p + ".gz"); err == nil {
			return p + ".gz"
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
		return p + ".gz" // let the loader report the missing file
	}
	train, err = LoadIDX(find("train-images-idx3-ubyte"), find("train-labels-idx1-ubyte"))
	if err != nil {
		return nil, nil, err
	}
	test, err = LoadIDX(find("t10k-images-idx3-ubyte"), find("t10k-labels-idx1-ubyte"))
	if err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// readerSize returns the bytes remaining in r if r can tell, else -1.
func readerSize(r io.Reader) int64 {
	if l, ok := r.(interface{ Len() int }); ok {
		return int64(l.Len())
	}
	return -1
}

// idxFile is an IDX file positioned after its header.
type idxFile struct {
	name string
	br   *bufio.Reader
	dims []uint64
	n    uint64 // number of data bytes the header declares
	// checked reports whether n was checked against the input size, so
	// that allocating n values up front is safe.
	checked bool
}

// openIDX decompresses r if needed, reads and checks the header, and checks
// the declared data size against overflow and, when size >= 0 and r is not
// compressed, against the bytes remaining.
func openIDX(r io.Reader, name string, size int64, magic uint32, kind string) (*idxFile, error) {
	br, compressed, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	hdrErr := func(msg string, err error) error {
		if err != nil && err != io.ErrUnexpectedEOF {
			msg = "reading" // a decompression or I/O error, described by err
		}
		return &ParseError{File: name, Field: "header", Msg: msg, Err: err}
	}
	var m [4]byte
	if err := readHeader(br, m[:]); err != nil {
		return nil, hdrErr("truncated magic number", err)
	}
	got := binary.BigEndian.Uint32(m[:])
	if got != magic {
		switch {
		case m[0] != 0 || m[1] != 0:
			return nil, hdrErr(fmt.Sprintf("magic 0x%08x: not an IDX file (want 0x%08x, %s)", got, magic, kind), nil)
		case m[2] != 0x08:
			return nil, hdrErr(fmt.Sprintf("magic 0x%08x: element type 0x%02x not supported (want 0x08, unsigned byte)", got, m[2]), nil)
		default:
			return nil, hdrErr(fmt.Sprintf("magic 0x%08x: %d dimensions, want %d (%s)", got, m[3], magic&0xff, kind), nil)
		}
	}
	nd := int(magic & 0xff)
	buf := make([]byte, 4*nd)
	if err := readHeader(br, buf); err != nil {
		return nil, hdrErr(fmt.Sprintf("truncated: %d dimension sizes expected", nd), err)
	}
	f := &idxFile{name: name, br: br, dims: make([]uint64, nd), n: 1}
	overflow := false
	for i := range f.dims {
		f.dims[i] = uint64(binary.BigEndian.Uint32(buf[4*i:]))
		hi, lo := bits.Mul64(f.n, f.dims[i])
		if hi != 0 {
			overflow = true
		}
		f.n = lo
	}
	// A float64 per byte must be addressable: cap at MaxInt/8 values.
	if overflow || f.n > math.MaxInt/8 {
		return nil, hdrErr(fmt.Sprintf("dimensions %v declare too many values", f.dims), nil)
	}
	if size >= 0 && !compressed {
		f.checked = true
		remaining := size - 4 - int64(4*nd)
		if uint64(max(remaining, 0)) < f.n {
			return nil, hdrErr(fmt.Sprintf("dimensions %v declare %d data bytes but only %d follow", f.dims, f.n, max(remaining, 0)), nil)
		}
	}
	return f, nil
}

// readHeader reads len(b) bytes, mapping a short read to io.ErrUnexpectedEOF.
func readHeader(r io.Reader, b []byte) error {
	_, err := io.ReadFull(r, b)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// read converts the data bytes to float64 with table t, appending to dst,
// then checks that the input ends there. recSize is the number of bytes per
// record, for error messages.
func (f *idxFile) read(dst []float64, t *[256]float64, recSize uint64) ([]float64, error) {
	var buf [idxChunk]byte
	var done uint64
	for done < f.n {
		k := int(min(f.n-done, idxChunk))
		got, err := io.ReadFull(f.br, buf[:k])
		old := len(dst)
		dst = growLen(dst, got)
		for i, c := range buf[:got] {
			dst[old+i] = t[c]
		}
		done += uint64(got)
		if err != nil {
			rec := int(done/recSize) + 1
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, &ParseError{File: f.name, Record: rec,
					Msg: fmt.Sprintf("truncated: the input ends after %d of the record's %d bytes (the header declares %d records)", done%recSize, recSize, f.n/recSize)}
			}
			return nil, &ParseError{File: f.name, Record: rec, Err: err}
		}
	}
	// Read to the end: this also makes gzip verify its checksum.
	var one [1]byte
	switch _, err := io.ReadFull(f.br, one[:]); {
	case err == nil:
		return nil, &ParseError{File: f.name, Msg: fmt.Sprintf("unexpected data after the %d records the header declares", f.n/recSize)}
	case !errors.Is(err, io.EOF):
		return nil, &ParseError{File: f.name, Msg: "after the last record", Err: err}
	}
	return dst, nil
}

// growLen extends s by k elements, reallocating (with doubling) if needed.
func growLen(s []float64, k int) []float64 {
	n := len(s) + k
	if n > cap(s) {
		t := make([]float64, len(s), max(n, 2*cap(s)))
		copy(t, s)
		s = t
	}
	return s[:n]
}

// alloc returns an empty slice with room for the declared data, capped
// when the declared size could not be checked against the input.
func (f *idxFile) alloc() []float64 {
	if f.checked {
		return make([]float64, 0, f.n)
	}
	return make([]float64, 0, min(f.n, maxInitialValues))
}

func parseIDXImages(r io.Reader, name string, size int64) (*Dense, error) {
	f, err := openIDX(r, name, size, idxImagesMagic, "idx3 unsigned-byte images")
	if err != nil {
		return nil, err
	}
	n, d := f.dims[0], f.dims[1]*f.dims[2]
	if d > math.MaxInt/8 || d == 0 && n > 0 {
		return nil, &ParseError{File: name, Field: "header", Msg: fmt.Sprintf("images of size %d×%d", f.dims[1], f.dims[2])}
	}
	var t [256]float64
	for i := range t {
		t[i] = float64(i) / 255.0
	}
	x, err := f.read(f.alloc(), &t, max(d, 1))
	if err != nil {
		return nil, err
	}
	return &Dense{N: int(n), D: int(d), X: x}, nil
}

func parseIDXLabels(r io.Reader, name string, size int64) ([]float64, error) {
	f, err := openIDX(r, name, size, idxLabelsMagic, "idx1 unsigned-byte labels")
	if err != nil {
		return nil, err
	}
	var t [256]float64
	for i := range t {
		t[i] = float64(i)
	}
	return f.read(f.alloc(), &t, 1)
}
