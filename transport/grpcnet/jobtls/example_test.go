package jobtls_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/syncmodels/syncmodels/transport/grpcnet/jobtls"
)

// A job's credentials for a coordinator reachable as 127.0.0.1 or
// coordinator.example, and two workers; then what each process loads.
func Example() {
	dir, err := os.MkdirTemp("", "job")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := jobtls.Create(dir, "mnist-7", 2, []string{"127.0.0.1", "coordinator.example"}); err != nil {
		panic(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for i, f := range files {
		files[i] = filepath.Base(f)
	}
	fmt.Println(strings.Join(files, " "))

	srv, err := jobtls.LoadServer(dir) // the coordinator
	if err != nil {
		panic(err)
	}
	w1, err := jobtls.LoadWorker(dir, 1) // worker 1's process
	if err != nil {
		panic(err)
	}
	job, ids, _ := jobtls.Identity(w1.TLS.Certificates[0].Leaf)
	fmt.Println(srv.Job, job, ids, w1.TLS.Certificates[0].Leaf.URIs[0])
	fmt.Println(srv.Token == w1.Token, len(srv.Token))
	// Output:
	// ca-key.pem ca.pem server-key.pem server.pem token worker-0-key.pem worker-0.pem worker-1-key.pem worker-1.pem
	// mnist-7 mnist-7 [worker 1] syncmodels://job/mnist-7/worker/1
	// true 51
}
