package cost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// spotRecord is one entry of describe-spot-price-history's output.
type spotRecord struct {
	AvailabilityZone   string
	InstanceType       string
	ProductDescription string
	SpotPrice          string
	Timestamp          string
}

// maxSpotHistory bounds the size of a spot-price history read by
// ParseSpotHistory: 64 MiB, some 300,000 records.
const maxSpotHistory = 64 << 20

// ParseSpotHistory reads an AWS spot-price history as the AWS CLI prints
// it in JSON,
//
//	aws ec2 describe-spot-price-history --output json \
//	    --instance-types c5.xlarge --availability-zone ca-central-1b \
//	    --product-descriptions "SUSE Linux" \
//	    --start-time 2021-01-01T00:00:00Z --end-time 2021-04-01T00:00:00Z
//
// that is {"SpotPriceHistory": [{"AvailabilityZone", "InstanceType",
// "ProductDescription", "SpotPrice", "Timestamp"}, ...]} (or the bare
// array), newest first as AWS lists it or in any order. Every record must
// be of one availability zone, instance type and product (filter the query
// as above). It returns the trace with times as offsets from the earliest
// timestamp, which it also returns: AWS includes the last change before
// --start-time, so the trace may start before the window asked for.
// Records repeated with the same time and price are merged; the same time
// with two prices is an error. name labels errors, *ParseError values that
// name the record (0-based, in input order).
func ParseSpotHistory(r io.Reader, name string) (*Trace, time.Time, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSpotHistory+1))
	if err != nil {
		return nil, time.Time{}, &ParseError{File: name, Err: err}
	}
	if len(data) > maxSpotHistory {
		return nil, time.Time{}, &ParseError{File: name, Msg: fmt.Sprintf("larger than %d bytes", maxSpotHistory), Err: ErrSyntax}
	}
	var recs []spotRecord
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		err = json.Unmarshal(t, &recs)
	} else {
		var doc struct{ SpotPriceHistory []spotRecord }
		err = json.Unmarshal(data, &doc)
		recs = doc.SpotPriceHistory
	}
	if err != nil {
		return nil, time.Time{}, &ParseError{File: name, Msg: "not describe-spot-price-history JSON: " + err.Error(), Err: ErrSyntax}
	}
	if len(recs) == 0 {
		return nil, time.Time{}, &ParseError{File: name, Msg: "no price records", Err: ErrOutsideTrace}
	}
	type entry struct {
		i     int
		at    time.Time
		price float64
	}
	es := make([]entry, len(recs))
	for i, rec := range recs {
		field := func(f string, v string) string { return fmt.Sprintf("record %d %s %s", i, f, quote(v)) }
		if rec.AvailabilityZone != recs[0].AvailabilityZone || rec.InstanceType != recs[0].InstanceType || rec.ProductDescription != recs[0].ProductDescription {
			return nil, time.Time{}, &ParseError{File: name,
				Field: fmt.Sprintf("record %d (%s, %s, %s)", i, rec.AvailabilityZone, rec.InstanceType, rec.ProductDescription),
				Msg:   fmt.Sprintf("not the zone, type and product of record 0 (%s, %s, %s); filter the query to one", recs[0].AvailabilityZone, recs[0].InstanceType, recs[0].ProductDescription),
				Err:   ErrInput}
		}
		at, err := time.Parse(time.RFC3339, rec.Timestamp)
		if err != nil {
			return nil, time.Time{}, &ParseError{File: name, Field: field("Timestamp", rec.Timestamp), Msg: "not an RFC 3339 time", Err: ErrSyntax}
		}
		price, perr := parsePrice(rec.SpotPrice)
		if perr != nil {
			perr.File, perr.Field = name, field("SpotPrice", rec.SpotPrice)
			return nil, time.Time{}, perr
		}
		es[i] = entry{i, at, price}
	}
	slices.SortStableFunc(es, func(a, b entry) int { return a.at.Compare(b.at) })
	start := es[0].at
	if span := es[len(es)-1].at.Sub(start); span >= time.Duration(1<<63-1) {
		return nil, time.Time{}, &ParseError{File: name, Msg: "records span more than 292 years", Err: ErrOverflow}
	}
	pts := make([]Point, 0, len(es))
	prev := -1 // the entry of the last point
	for k, e := range es {
		at := e.at.Sub(start)
		if n := len(pts); n > 0 && pts[n-1].At == at {
			if pts[n-1].PerHour == e.price {
				continue
			}
			// The sort is stable: es[prev] came first in the input.
			return nil, time.Time{}, &ParseError{File: name,
				Field: "record " + strconv.Itoa(e.i),
				Msg:   fmt.Sprintf("price %v at %s, but record %d has %v at the same time", e.price, e.at.Format(time.RFC3339Nano), es[prev].i, pts[n-1].PerHour),
				Err:   ErrOrder}
		}
		pts = append(pts, Point{At: at, PerHour: e.price})
		prev = k
	}
	return &Trace{points: pts}, start, nil
}
