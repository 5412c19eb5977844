package cost

import (
	"errors"
	"testing"
)

func TestIBMCloud2021(t *testing.T) {
	// MLLess Table 2, prices in $/hour.
	want := map[string]float64{TypeMessaging: 0.15, TypeRedis: 0.17, TypeFunction: 0.1224, TypePyTorchVM: 0.2}
	tab := IBMCloud2021()
	if len(tab) != len(want) {
		t.Fatalf("IBMCloud2021 has %d rows; want %d", len(tab), len(want))
	}
	for typ, w := range want {
		in, err := tab.Lookup(typ)
		if err != nil || !closeTo(in.Price.Hourly(), w) {
			t.Errorf("Lookup(%q).Price.Hourly() = %v, %v; want %v", typ, in.Price.Hourly(), err, w)
		}
	}
	if _, err := tab.Lookup("m5.large"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Lookup(m5.large) error = %v; want ErrUnknown", err)
	}
	tab[0].Price = DollarsPerHour(9)
	if in, _ := IBMCloud2021().Lookup(TypeMessaging); in.Price.Dollars != 0.15 {
		t.Errorf("IBMCloud2021 shares state: messaging price %v after edit of a copy", in.Price.Dollars)
	}
}

func TestDeployments(t *testing.T) {
	tests := []struct {
		name  string
		build func(int, Options) ([]Resource, error)
		p     int
		o     Options
		n     int     // resources
		rate  float64 // $/s
		first string
		last  string
	}{
		{"MLLess 12", MLLess, 12, Options{}, 14, 12*3.4e-5 + 0.32/3600, NameMessaging, "worker-11"},
		{"MLLess 1", MLLess, 1, Options{}, 3, 3.4e-5 + 0.32/3600, NameMessaging, "worker-0"},
		{"PyTorch 12", PyTorch, 12, Options{}, 3, 3 * 0.2 / 3600, "vm-0", "vm-2"},
		{"PyTorch 24", PyTorch, 24, Options{}, 6, 6 * 0.2 / 3600, "vm-0", "vm-5"},
		{"PyTorch 13", PyTorch, 13, Options{}, 4, 4 * 0.2 / 3600, "vm-0", "vm-3"},
		{"PyTorch 1", PyTorch, 1, Options{}, 1, 0.2 / 3600, "vm-0", "vm-0"},
	}
	for _, tt := range tests {
		rs, err := tt.build(tt.p, tt.o)
		if err != nil {
			t.Errorf("%s: error %v", tt.name, err)
			continue
		}
		if len(rs) != tt.n || rs[0].Name != tt.first || rs[len(rs)-1].Name != tt.last {
			t.Errorf("%s: %d resources %s..%s; want %d %s..%s", tt.name, len(rs), rs[0].Name, rs[len(rs)-1].Name, tt.n, tt.first, tt.last)
		}
		if got, err := Rate(rs); err != nil || !closeTo(got, tt.rate) {
			t.Errorf("%s: Rate = %v, %v; want %v", tt.name, got, err, tt.rate)
		}
	}
}

func TestDeploymentBilling(t *testing.T) {
	rs, _ := MLLess(2, Options{})
	if rs[0].Billing != PerSecond() || rs[1].Billing != PerSecond() || rs[2].Billing != Per100ms() {
		t.Errorf("MLLess default billing = %+v, %+v, %+v; want per second, per second, per 100 ms", rs[0].Billing, rs[1].Billing, rs[2].Billing)
	}
	rs, _ = MLLess(1, Options{VMBilling: PerHour(), FunctionBilling: Exact()})
	if rs[0].Billing != PerHour() || rs[2].Billing != Exact() {
		t.Errorf("MLLess billing options ignored: %+v, %+v", rs[0].Billing, rs[2].Billing)
	}
	if rs[2].Kind != FaaS || rs[0].Kind != VM {
		t.Errorf("MLLess kinds = %v, %v; want VM, FaaS", rs[0].Kind, rs[2].Kind)
	}
}

func TestDeploymentErrors(t *testing.T) {
	for _, build := range []func(int, Options) ([]Resource, error){MLLess, PyTorch} {
		if _, err := build(0, Options{}); !errors.Is(err, ErrConfig) {
			t.Errorf("build(0) error = %v; want ErrConfig", err)
		}
		// A table without the needed rows.
		if _, err := build(4, Options{Table: Table{{Type: "other"}}}); !errors.Is(err, ErrUnknown) {
			t.Errorf("build with foreign table error = %v; want ErrUnknown", err)
		}
		if _, err := build(4, Options{VMBilling: Billing{Granularity: -1}}); !errors.Is(err, ErrNegative) {
			t.Errorf("build with negative granularity error = %v; want ErrNegative", err)
		}
	}
	bad := IBMCloud2021()
	for i := range bad {
		bad[i].Workers = 0
	}
	if _, err := PyTorch(4, Options{Table: bad}); !errors.Is(err, ErrConfig) {
		t.Errorf("PyTorch with 0 workers per VM error = %v; want ErrConfig", err)
	}
	tr, _ := NewTrace([]Point{{0, 1}})
	if _, err := Rate([]Resource{{Name: "s", Kind: Spot, Trace: tr}}); !errors.Is(err, ErrInput) {
		t.Errorf("Rate(trace-priced) error = %v; want ErrInput", err)
	}
}
