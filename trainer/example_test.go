package trainer_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/syncmodels/syncmodels/algorithms/kmeans"
	"github.com/syncmodels/syncmodels/dataset"
	"github.com/syncmodels/syncmodels/trainer"
)

// K-means on three well-separated blobs, split over four shards: full-batch
// incremental EM is Lloyd's algorithm, and the deltas are merged in shard
// order, so the result does not depend on how many cores ran the shards.
func ExampleRun() {
	data := dataset.Blobs(rand.New(rand.NewPCG(1, 2)), 3000, 2, 3, 0.5)
	km, err := kmeans.New(data, kmeans.Config{K: 3, Init: kmeans.InitKMeansPP})
	if err != nil {
		panic(err)
	}
	res, err := trainer.Run(context.Background(), km, trainer.Config{Workers: 4, Iters: 10, Seed: 7})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d iterations, %d point visits\n", res.Iterations, res.Points)
	fmt.Printf("mean squared distance to the nearest centroid: %.2f\n", res.Objective/3000)
	// Output:
	// 10 iterations, 30000 point visits
	// mean squared distance to the nearest centroid: 0.50
}
