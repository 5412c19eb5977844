package dataset_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/syncmodels/syncmodels/dataset"
)

func ExampleShard() {
	contiguous, _ := dataset.Shard(10, 3, nil)
	fmt.Println(contiguous)

	shuffled, _ := dataset.Shard(10, 3, rand.New(rand.NewPCG(1, 2)))
	again, _ := dataset.Shard(10, 3, rand.New(rand.NewPCG(1, 2)))
	fmt.Println(len(shuffled[0]), len(shuffled[1]), len(shuffled[2]), fmt.Sprint(shuffled) == fmt.Sprint(again))

	_, err := dataset.Shard(2, 3, nil)
	fmt.Println(err)
	// Output:
	// [[0 1 2 3] [4 5 6] [7 8 9]]
	// 4 3 3 true
	// dataset: cannot split 2 points into 3 shards (want 1 <= parts <= n)
}

func ExampleParseLIBSVM() {
	in := `# label index:value ...
+1 1:0.5 3:2.5
-1 2:1 # comment
`
	m, err := dataset.ParseLIBSVM(strings.NewReader(in), "tiny.svm", dataset.LIBSVMOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d×%d, %d stored, labels %v\n", m.N, m.D, m.NNZ(), m.Labels)
	cols, vals := m.Row(0)
	fmt.Println(cols, vals)

	_, err = dataset.ParseLIBSVM(strings.NewReader("1 3:1 2:1\n"), "bad.svm", dataset.LIBSVMOptions{})
	fmt.Println(err)
	// Output:
	// 2×3, 3 stored, labels [1 -1]
	// [0 2] [0.5 2.5]
	// dataset: bad.svm:1: feature 2 "2:1": index 2 not greater than the previous index 3
}

func ExampleParseCSV() {
	in := "1,0.5,2\n0,1.5,abc\n"
	_, err := dataset.ParseCSV(strings.NewReader(in), "train.csv", dataset.CSVOptions{})
	var pe *dataset.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Line, pe.Msg)
	}
	fmt.Println(err)
	// Output:
	// 2 not a number
	// dataset: train.csv:2: column 3 "abc": not a number
}
