package main

import (
	"errors"
	"strings"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/workload"
)

// build constructs the algorithm the flags name over the loaded data
// (workload.Build).
func build(f *workloadFlags, d *data) (algorithms.Algorithm, error) {
	alg, err := workload.Build(f.spec(), d.workload())
	return alg, cliError(err)
}

// cliError is err as syncbench says it: a workload.SpecError names the
// fields as syncbench's flags already, so its Msg is the message, without
// the package prefix; the size limit is syncbench's (workload.LimitOwner
// becomes "syncbench").
func cliError(err error) error {
	var se *workload.SpecError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Msg
	if errors.Is(err, workload.ErrTooLarge) {
		msg = strings.Replace(msg, workload.LimitOwner, "syncbench", 1)
	}
	return errors.New(msg)
}
