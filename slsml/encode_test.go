package slsml

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestEncodeRoundTrip(t *testing.T) {
	m := model{iter: 3, theta: []float64{1, -2.5, 0}}
	if got, err := decodeModel("model/3", encodeModel(m), 3, 3); err != nil || !reflect.DeepEqual(got, m) {
		t.Errorf("model round trip = %+v, %v; want %+v", got, err, m)
	}
	p := partition{c: Contribution{Iter: 2, Worker: 7}, r: 1, count: 16, vec: []float64{0.5, math.SmallestNonzeroFloat64}}
	if got, err := decodePartition("k", encodePartition(p), p.c, 1, 2); err != nil || !reflect.DeepEqual(got, p) {
		t.Errorf("partition round trip = %+v, %v; want %+v", got, err, p)
	}
	s := slice{iter: 4, r: 2, from: 10, cut: 17, count: 96, digest: digest([]Contribution{{3, 1}, {4, 0}}), theta: []float64{math.MaxFloat64}}
	if got, err := decodeSlice("k", encodeSlice(s), 4, 2, 1); err != nil || !reflect.DeepEqual(got, s) {
		t.Errorf("slice round trip = %+v, %v; want %+v", got, err, s)
	}
	c := Contribution{Iter: 9, Worker: 4}
	if got, err := decodeNote(1, encodeNote(c), 5); err != nil || got != c {
		t.Errorf("note round trip = %v, %v; want %v", got, err, c)
	}
	if digest([]Contribution{{1, 2}}) == digest([]Contribution{{2, 1}}) {
		t.Error("digest does not tell w2@1 from w1@2")
	}
}

// resum replaces the checksum of a value after tampering.
func resum(b []byte) []byte {
	body := b[:len(b)-4]
	return binary.LittleEndian.AppendUint32(body[:len(body):len(body)], crc32.Checksum(body, castagnoli))
}

func TestDecodeMalformed(t *testing.T) {
	good := encodePartition(partition{c: Contribution{Iter: 1, Worker: 2}, r: 0, count: 4, vec: []float64{1, 2}})
	nan := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(nan[len(nan)-4-8:], math.Float64bits(math.NaN()))
	zero := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(zero[16:], 0) // count
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"foreign", []byte("hello, world"), `starts with "hell"`},
		{"model as partition", encodeModel(model{iter: 1, theta: []float64{1, 2}}), `want "SLG1"`},
		{"flipped bit", append(append([]byte(nil), good[:20]...), append([]byte{good[20] ^ 1}, good[21:]...)...), "checksum"},
		{"truncated", resum(good[:len(good)-8]), "floats"},
		{"NaN", resum(nan), "entry 1 is NaN"},
		{"zero count", resum(zero), "count 0"},
	} {
		_, err := decodePartition("grad/1/2/0", tc.b, Contribution{Iter: 1, Worker: 2}, 0, 2)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"grad/1/2/0"`) {
			t.Errorf("%s: %v; want ErrMalformed naming the key and %q", tc.name, err, tc.want)
		}
	}
	if _, err := decodePartition("k", good, Contribution{Iter: 1, Worker: 3}, 0, 2); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "worker 2, want 3") {
		t.Errorf("partition of another worker: %v", err)
	}
	if _, err := decodeNote(5, []byte{1, 2, 3}, 4); !errors.Is(err, ErrMalformed) {
		t.Errorf("short note: %v", err)
	}
	if _, err := decodeNote(5, encodeNote(Contribution{Worker: 9}), 4); !errors.Is(err, ErrMalformed) {
		t.Errorf("note of worker 9 of 4: %v", err)
	}
}
