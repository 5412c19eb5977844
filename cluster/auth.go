package cluster

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// isAuth reports whether err is a refusal that retrying cannot change: a
// bad token, a certificate for another worker, a stream of another
// layout.
func isAuth(err error) bool {
	for e := err; e != nil; {
		if s, ok := status.FromError(e); ok {
			switch s.Code() {
			case codes.Unauthenticated, codes.PermissionDenied, codes.FailedPrecondition, codes.InvalidArgument:
				return true
			}
			return false
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}
