package main

import "testing"

// fspv+opt's data migration samples its Fig. 12 history at every barrier
// and once more at the end; a barrier that ran past the run's end (the
// coordinator was still applying) made the final sample look earlier
// than the last one, and the run failed with "migration history: … must
// not be before worker 0's previous sample". The first case failed so
// before the fix; the others are nearby scales.
func TestMigrationSampleAfterTheEnd(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "400", "-dim", "256", "-duration", "80ms", "-seed", "3"},
		{"-n", "800", "-dim", "64", "-duration", "25ms", "-seed", "2"},
		{"-n", "1200", "-dim", "64", "-duration", "40ms", "-seed", "2"},
	} {
		cmd := append([]string{"compare", "-algo", "nmf", "-rank", "10", "-data", "synthetic:nonneg", "-sync", "fspv+opt"}, args...)
		if code, _, errs := runCmd(t, cmd...); code != 0 {
			t.Errorf("syncbench %v: exit %d: %s", cmd, code, errs)
		}
	}
}
