package curvefit_test

import (
	"errors"
	"testing"

	"github.com/syncmodels/syncmodels/curvefit"
)

// TestErrorNames: a length mismatch matches the module-wide ErrLength
// (docs/errors.md) and the deprecated alias ErrDimension.
func TestErrorNames(t *testing.T) {
	_, err := curvefit.FitPower([]float64{1, 2, 3, 4, 5}, []float64{5, 4, 3, 2}, curvefit.FitOptions{})
	if !errors.Is(err, curvefit.ErrLength) || !errors.Is(err, curvefit.ErrDimension) {
		t.Errorf("FitPower(5 times, 4 losses) = %v; want ErrLength and the deprecated ErrDimension", err)
	}
	if errors.Is(err, curvefit.ErrNonFinite) {
		t.Errorf("FitPower(5 times, 4 losses) = %v; matches ErrNonFinite", err)
	}
}
