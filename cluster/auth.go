package cluster

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// isAuth reports whether err is a refusal that retrying cannot change: a
// bad token, a certificate for another worker, a stream of another
// layout.
func isAuth(err error) bool {
	// status.Code finds a gRPC status wrapped anywhere in err.
	switch status.Code(err) {
	case codes.Unauthenticated, codes.PermissionDenied, codes.FailedPrecondition, codes.InvalidArgument:
		return true
	}
	return false
}
