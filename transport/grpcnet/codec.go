package grpcnet

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// codecName is the content-subtype of the frame codec
// ("application/grpc+syncmodels-frame").
const codecName = "syncmodels-frame"

// Service and method names. The service has a bidirectional-streaming
// method, Stream, whose frames are messages in transport's binary encoding
// (transport.Message.AppendBinary), and a server-streaming one, Job, that
// answers one (empty) request frame with one frame: the job's description.
const (
	serviceName   = "syncmodels.transport.v1.Transport"
	methodName    = "Stream"
	fullMethod    = "/" + serviceName + "/" + methodName
	jobMethodName = "Job"
	fullJobMethod = "/" + serviceName + "/" + jobMethodName
)

// Metadata keys of a worker's stream.
const (
	mdNode   = "syncmodels-node"       // the worker's NodeID, decimal
	mdLayout = "syncmodels-layout"     // the layout, "params,delta,block"
	mdGen    = "syncmodels-generation" // the coordinator's generation, decimal (stream headers)
)

// frame is one message's encoding on the wire.
type frame struct{ b []byte }

// codec carries frames as they are: no protobuf, no protoc step.
type codec struct{}

func init() {
	// Registered by content-subtype, so that a grpc.Server the caller
	// owns (Server.Register) decodes frames without a server-wide codec
	// option; it serves no other content-subtype.
	encoding.RegisterCodecV2(codec{})
}

func (codec) Name() string { return codecName }

func (codec) Marshal(v any) (mem.BufferSlice, error) {
	f, ok := v.(*frame)
	if !ok {
		return nil, fmt.Errorf("grpcnet: codec cannot marshal %T", v)
	}
	return mem.BufferSlice{mem.SliceBuffer(f.b)}, nil
}

func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*frame)
	if !ok {
		return fmt.Errorf("grpcnet: codec cannot unmarshal into %T", v)
	}
	f.b = data.Materialize()
	return nil
}

// serviceDesc is the hand-written service description: what protoc would
// generate for
//
//	service Transport {
//	  rpc Stream(stream Frame) returns (stream Frame);
//	  rpc Job(Frame) returns (stream Frame);
//	}
//
// Job is a stream method, not a unary one, so that it runs through the
// same stream interceptors (the guard) as Stream.
func serviceDesc(stream, job grpc.StreamHandler) *grpc.ServiceDesc {
	return &grpc.ServiceDesc{
		ServiceName: serviceName,
		HandlerType: (*any)(nil),
		Streams: []grpc.StreamDesc{{
			StreamName:    methodName,
			Handler:       stream,
			ServerStreams: true,
			ClientStreams: true,
		}, {
			StreamName:    jobMethodName,
			Handler:       job,
			ServerStreams: true,
		}},
		Metadata: "grpcnet (hand-written, no .proto)",
	}
}

var (
	streamDesc    = &grpc.StreamDesc{StreamName: methodName, ServerStreams: true, ClientStreams: true}
	jobStreamDesc = &grpc.StreamDesc{StreamName: jobMethodName, ServerStreams: true}
)
