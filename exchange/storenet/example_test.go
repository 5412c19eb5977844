package storenet_test

import (
	"context"
	"fmt"

	"github.com/syncmodels/syncmodels/algorithms"
	"github.com/syncmodels/syncmodels/exchange"
	"github.com/syncmodels/syncmodels/exchange/storenet"
	"github.com/syncmodels/syncmodels/transport"
)

// A coordinator and a worker exchange messages through a store (here the
// in-process one; storenet.RedisDial for a Redis). The store then loses
// its data with a message unread: the coordinator reports what was lost
// and goes on.
func Example() {
	mem := exchange.NewMemory()
	l := algorithms.Layout{Params: 2, Delta: 2}
	net, err := storenet.New(storenet.Config{Layout: l, Dial: storenet.MemoryDial(mem, "job-1", exchange.Limits{}),
		OnLoss: func(l storenet.Loss) {
			fmt.Println("loss:", l.Kind, "of", l.Node, "inbox:", l.Messages.Total().Messages, "message")
		}})
	if err != nil {
		panic(err)
	}
	defer net.Close()
	coord, _ := net.Open(transport.Coordinator)
	worker, _ := net.Open(0)
	ctx := context.Background()

	d := algorithms.NewDelta(l)
	d.Vec[0], d.Count = 0.5, 1
	worker.Send(ctx, &transport.Message{Kind: transport.Commit, To: transport.Coordinator, Seq: 1, Delta: d})
	m, _ := coord.Recv(ctx)
	fmt.Println(m.Kind, "from", m.From, "seq", m.Seq, "delta", m.Delta.Vec)

	worker.Send(ctx, &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: 2})
	mem.Restart() // the heartbeat is lost, unread
	worker.Send(ctx, &transport.Message{Kind: transport.Heartbeat, To: transport.Coordinator, Seq: 3})
	m, _ = coord.Recv(ctx)
	fmt.Println(m.Kind, "from", m.From, "seq", m.Seq)
	st := net.Stats().Total()
	fmt.Println("sent", st.Sent.Total().Messages, "received", st.Received.Total().Messages, "dropped", st.Dropped.Total().Messages)
	// Output:
	// commit from worker 0 seq 1 delta [0.5 0]
	// loss: restart of coordinator inbox: 1 message
	// heartbeat from worker 0 seq 3
	// sent 3 received 2 dropped 1
}
