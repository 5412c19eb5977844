package dataset

import (
	"bytes"
	"fmt"
	"io"
	"math"
)

// ReadMovieLens reads a MovieLens ratings file (raw, gzip or bzip2). See
// ParseMovieLens for the formats.
func ReadMovieLens(path string) (*Ratings, error) {
	f, _, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMovieLens(f, path)
}

// ParseMovieLens parses MovieLens ratings from r; name is used in errors.
// The format is detected from the first non-blank line:
//
//	1::1193::5::978300760              ratings.dat (ML-1M, ML-10M)
//	userId,movieId,rating,timestamp    ratings.csv header (ML-20M, ML-25M, ml-latest)
//	196	242	3	881250949           u.data, tab-separated (ML-100K)
//
// Every rating line has exactly four fields: integer user and item ids, a
// finite rating and an integer timestamp (checked, then dropped). User and
// item ids are remapped to dense 0-based ids in order of first appearance;
// the file's ids are kept in UserIDs and ItemIDs. Blank lines are skipped.
// Anything else is a *ParseError naming the line and the field.
func ParseMovieLens(r io.Reader, name string) (*Ratings, error) {
	br, _, err := decompress(r, name)
	if err != nil {
		return nil, err
	}
	p := &movielensParser{name: name,
		out:   &Ratings{User: []int32{}, Item: []int32{}, Value: []float64{}, UserIDs: []int64{}, ItemIDs: []int64{}},
		users: make(map[int64]int32), items: make(map[int64]int32)}
	// Ids are remapped in order of appearance, so parsing is sequential.
	err = runChunks(br, name, 1, chunkSize,
		func(*chunk) struct{} { return struct{}{} },
		func(c *chunk, _ struct{}) error {
			for n, line := range c.lines() {
				if err := p.line(n, line); err != nil {
					return err
				}
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	p.out.NumUsers, p.out.NumItems = len(p.out.UserIDs), len(p.out.ItemIDs)
	return p.out, nil
}

// movielensFields names the fields of a rating line, for errors.
var movielensFields = [4]string{"user", "item", "rating", "timestamp"}

// movielensParser holds the state of ParseMovieLens.
type movielensParser struct {
	name         string
	sep          []byte // field separator; nil until the first line is seen
	out          *Ratings
	users, items map[int64]int32
}

// line parses line number n.
func (p *movielensParser) line(n int, line []byte) error {
	if isBlank(line) {
		return nil
	}
	if p.sep == nil {
		switch {
		case bytes.Contains(line, []byte("::")):
			p.sep = []byte("::")
		case bytes.IndexByte(line, ',') >= 0:
			p.sep = []byte(",")
			if first, _, _ := bytes.Cut(line, p.sep); len(first) > 0 && (first[0] < '0' || first[0] > '9') && first[0] != '-' {
				if h := string(trimSpace(line)); h != "userId,movieId,rating,timestamp" {
					return &ParseError{File: p.name, Line: n, Field: "header " + quote(line),
						Msg: "want userId,movieId,rating,timestamp"}
				}
				return nil
			}
		case bytes.IndexByte(line, '\t') >= 0:
			p.sep = []byte("\t")
		default:
			return &ParseError{File: p.name, Line: n, Field: quote(line),
				Msg: "unrecognised MovieLens format (want user::item::rating::timestamp, a ratings.csv header, or tab-separated u.data)"}
		}
	}
	var fields [4][]byte
	nf := 0
	for rest := line; ; {
		f, tail, found := bytes.Cut(rest, p.sep)
		if nf < len(fields) {
			fields[nf] = trimSpace(f)
		}
		nf++
		if !found {
			break
		}
		rest = tail
	}
	if nf != 4 {
		return &ParseError{File: p.name, Line: n, Msg: fmt.Sprintf("%d fields, want 4 (user, item, rating, timestamp separated by %q)", nf, p.sep)}
	}
	bad := func(k int, msg string) error {
		return &ParseError{File: p.name, Line: n, Field: movielensFields[k] + " " + quote(fields[k]), Msg: msg}
	}
	var ids [2]int64
	for k := range ids {
		var msg string
		if ids[k], msg = parseInt64(fields[k]); msg != "" {
			return bad(k, msg)
		}
	}
	v, msg := parseFinite(fields[2])
	if msg != "" {
		return bad(2, msg)
	}
	if _, msg := parseInt64(fields[3]); msg != "" {
		return bad(3, msg)
	}
	u, ok := p.users[ids[0]]
	if !ok {
		if len(p.out.UserIDs) == math.MaxInt32 {
			return bad(0, "too many distinct users")
		}
		u = int32(len(p.out.UserIDs))
		p.users[ids[0]] = u
		p.out.UserIDs = append(p.out.UserIDs, ids[0])
	}
	it, ok := p.items[ids[1]]
	if !ok {
		if len(p.out.ItemIDs) == math.MaxInt32 {
			return bad(1, "too many distinct items")
		}
		it = int32(len(p.out.ItemIDs))
		p.items[ids[1]] = it
		p.out.ItemIDs = append(p.out.ItemIDs, ids[1])
	}
	p.out.User = append(p.out.User, u)
	p.out.Item = append(p.out.Item, it)
	p.out.Value = append(p.out.Value, v)
	return nil
}
