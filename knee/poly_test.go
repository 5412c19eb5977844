package knee

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// Polynomial smoothing against numpy (testdata/knee/poly.json, written by
// make_refs.py): np.polynomial.Polynomial.fit (least squares in a scaled
// domain, well conditioned) and np.polyfit + np.poly1d, which is what
// kneed's interp_method="polynomial" evaluates (raw powers of x: it loses
// digits at high degree, hence the looser bound).
func TestPolyFitAgainstNumpy(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "knee", "poly.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Curve   string
			Degree  int
			X, Y    []float64
			Polyfit []float64
			Fit     []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("no cases in poly.json")
	}
	for _, c := range ref.Cases {
		var f polyFit
		got := make([]float64, len(c.X))
		f.fit(c.X, c.Y, c.Degree, got)
		spread := slices.Max(c.Y) - slices.Min(c.Y)
		var dFit, dPolyfit float64
		for i := range got {
			dFit = max(dFit, math.Abs(got[i]-c.Fit[i])/spread)
			dPolyfit = max(dPolyfit, math.Abs(got[i]-c.Polyfit[i])/spread)
		}
		t.Logf("%s degree %d: max |Go − Polynomial.fit| = %.2g, max |Go − polyfit| = %.2g (relative to the spread of y)", c.Curve, c.Degree, dFit, dPolyfit)
		if dFit > 1e-12 {
			t.Errorf("%s degree %d: fit differs from numpy Polynomial.fit by %.3g of the spread of y; want ≤ 1e-12", c.Curve, c.Degree, dFit)
		}
		if dPolyfit > 1e-7 {
			t.Errorf("%s degree %d: fit differs from numpy polyfit by %.3g of the spread of y; want ≤ 1e-7", c.Curve, c.Degree, dPolyfit)
		}
	}
}

// A polynomial of degree ≤ deg is its own fit, on even and uneven x and
// with a large offset.
func TestPolyFitReproducesPolynomials(t *testing.T) {
	for _, offset := range []float64{0, 1e6} {
		for _, uneven := range []bool{false, true} {
			x, _ := line(50, 0, 1, uneven)
			y := make([]float64, len(x))
			for i, v := range x {
				u := v / x[len(x)-1]
				y[i] = offset + 3 - 2*u + 5*u*u*u
			}
			for _, deg := range []int{3, 7, 11} {
				var f polyFit
				got := make([]float64, len(x))
				f.fit(x, y, deg, got)
				for i := range got {
					if math.Abs(got[i]-y[i]) > 1e-12*(1+offset) {
						t.Errorf("offset %v, uneven %v, degree %d: fit[%d] = %v; want %v", offset, uneven, deg, i, got[i], y[i])
						break
					}
				}
			}
		}
	}
}

// A degree of at least n−1 interpolates: the result is that of no
// smoothing (kneed's truncated tests fit degree 7 to 7 points).
func TestKneedleHighDegreeIsNoSmoothing(t *testing.T) {
	x, y := figure2()
	want, _ := Kneedle(x, y, Options{})
	for _, deg := range []int{9, 10, 50} {
		r, err := Kneedle(x, y, Options{Interp: Interp{Method: InterpPolynomial, Degree: deg}})
		if err != nil || !reflect.DeepEqual(r, want) {
			t.Errorf("degree %d: %+v, %v; want %+v", deg, r, err, want)
		}
	}
}

func TestStrings(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Concave.String(), "concave"}, {Convex.String(), "convex"}, {Curve(9).String(), "Curve(9)"},
		{Increasing.String(), "increasing"}, {Decreasing.String(), "decreasing"}, {Direction(9).String(), "Direction(9)"},
		{InterpNone.String(), "none"}, {InterpPolynomial.String(), "polynomial"}, {InterpMethod(9).String(), "InterpMethod(9)"},
	} {
		if tt.got != tt.want {
			t.Errorf("String() = %q; want %q", tt.got, tt.want)
		}
	}
}
