package dataset

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestReadMovieLensFixtures(t *testing.T) {
	tests := []struct {
		path string
		want *Ratings
	}{
		{"testdata/ml-ratings.dat", &Ratings{NumUsers: 3, NumItems: 3,
			User: []int32{0, 0, 1, 2}, Item: []int32{0, 1, 0, 2}, Value: []float64{5, 3, 4, 4.5},
			UserIDs: []int64{1, 2, 3}, ItemIDs: []int64{1193, 661, 3408}}},
		{"testdata/ml-ratings.csv", &Ratings{NumUsers: 2, NumItems: 2,
			User: []int32{0, 0, 1}, Item: []int32{0, 1, 0}, Value: []float64{4, 4, 3.5},
			UserIDs: []int64{1, 5}, ItemIDs: []int64{1, 3}}},
		{"testdata/ml-u.data", &Ratings{NumUsers: 2, NumItems: 3,
			User: []int32{0, 1, 0}, Item: []int32{0, 1, 2}, Value: []float64{3, 3, 1},
			UserIDs: []int64{196, 186}, ItemIDs: []int64{242, 302, 377}}},
	}
	for _, tt := range tests {
		raw, err := os.ReadFile(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{tt.path, writeTemp(t, "r.gz", gz(raw))} {
			got, err := ReadMovieLens(p)
			if err != nil {
				t.Errorf("ReadMovieLens(%s): %v", p, err)
				continue
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReadMovieLens(%s) = %+v; want %+v", p, got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("ReadMovieLens(%s): Validate: %v", p, err)
			}
		}
	}
}

func TestParseMovieLensEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "userId,movieId,rating,timestamp\n"} {
		r, err := ParseMovieLens(strings.NewReader(in), "e")
		if err != nil || r.Len() != 0 || r.NumUsers != 0 || r.Validate() != nil {
			t.Errorf("ParseMovieLens(%q) = %+v, %v; want no ratings", in, r, err)
		}
	}
}

// movielensErrors are malformed MovieLens inputs and what the error must say.
var movielensErrors = []errCase{
	{"three fields", "1::2::3", 1, 0, []string{"3 fields, want 4"}},
	{"five fields", "1::2::3::4\n1::2::3::4::5\n", 2, 0, []string{"5 fields, want 4"}},
	{"bad user", "a::1::2::3", 1, 0, []string{`user "a"`, "not an integer"}},
	{"bad item", "1::1.5::2::3", 1, 0, []string{`item "1.5"`, "not an integer"}},
	{"bad rating", "1::1::x::3", 1, 0, []string{`rating "x"`, "not a number"}},
	{"nan rating", "1,1,NaN,3", 1, 0, []string{`rating "NaN"`, "not finite"}},
	{"bad timestamp", "userId,movieId,rating,timestamp\n1,1,4,\n", 2, 0, []string{`timestamp ""`, "empty"}},
	{"huge id", "1::99999999999999999999::4::3", 1, 0, []string{`item "99999999999999999999"`, "out of range"}},
	{"bad header", "user,item,rating,ts\n1,2,3,4\n", 1, 0, []string{"header", "want userId,movieId,rating,timestamp"}},
	{"unknown format", "hello world\n", 1, 0, []string{"unrecognised MovieLens format"}},
	{"mixed separators", "1::2::3::4\n1,2,3,4\n", 2, 0, []string{"1 fields, want 4"}},
}

func TestParseMovieLensErrors(t *testing.T) {
	for _, tt := range movielensErrors {
		r, err := ParseMovieLens(strings.NewReader(tt.in), "ratings.dat")
		if err == nil {
			t.Errorf("ParseMovieLens(%q) = %+v; want an error", tt.in, r)
			continue
		}
		checkParseError(t, err, "ratings.dat", tt.line, 0, tt.want...)
	}
}
