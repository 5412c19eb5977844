package redisx_test

import (
	"context"
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/redisx"
)

// A peer of job 7 on a Redis server. (This example needs a server at
// 127.0.0.1:6379, so it is compiled but not run; TestRedis runs the
// conformance suite against a redis-server that redistest starts.)
func Example() {
	ctx := context.Background()
	s, err := redisx.Open(ctx, "redis://127.0.0.1:6379/0", redisx.Config{Namespace: "job-7"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	p, err := exchange.New(s, exchange.Config{Job: 7, ID: 0, Layout: algorithms.Layout{Params: 2, Delta: 2}})
	if err != nil {
		fmt.Println(err)
		return
	}
	n, err := p.Arrive(ctx, "round/1")
	fmt.Println(n, err)
}
