package workload_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/workload"
)

// A coordinator describes the workload and the sharding as JSON; a worker
// process given only that JSON and its index builds the same K-means,
// loads its own shard and checks the shard hash against the
// coordinator's.
func Example() {
	// Coordinator.
	spec := workload.Spec{Algo: "kmeans", Data: "synthetic:blobs", N: 1000, Dim: 4, K: 3, Seed: 1}.WithDefaults()
	sharding := workload.Sharding{Workers: 4, Shuffle: true, Seed: 7}
	job, _ := json.Marshal(struct {
		Spec     workload.Spec     `json:"spec"`
		Sharding workload.Sharding `json:"sharding"`
	}{spec, sharding})
	fmt.Println(string(job))
	alg, data, _ := workload.Open(spec)
	shards, _ := sharding.Shards(alg.NumPoints())
	want, _ := workload.ShardHash(alg, data, shards[2])

	// Worker 2.
	var got struct {
		Spec     workload.Spec     `json:"spec"`
		Sharding workload.Sharding `json:"sharding"`
	}
	if err := json.Unmarshal(job, &got); err != nil {
		fmt.Println(err)
		return
	}
	walg, wdata, err := workload.Open(got.Spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	points, _ := got.Sharding.Shard(walg.NumPoints(), 2)
	hash, _ := workload.ShardHash(walg, wdata, points)
	w, _ := walg.NewWorker(points)
	theta0, _ := walg.Init(rand.New(rand.NewPCG(7, 1)))
	w.SetParams(theta0)
	d := algorithms.NewDelta(walg.Layout())
	w.Process(0, w.Len(), d)
	fmt.Printf("%s on %s: worker 2 holds %d points, hash agrees: %t, delta over %d points\n",
		walg.Name(), wdata, w.Len(), hash == want, d.Count)
	// Output:
	// {"spec":{"algo":"kmeans","data":"synthetic:blobs","n":1000,"dim":4,"k":3,"rank":10,"init":"kmeans++","seed":1},"sharding":{"workers":4,"shuffle":true,"seed":7}}
	// kmeans on synthetic:blobs (1000×4 dense): worker 2 holds 250 points, hash agrees: true, delta over 250 points
}
