module github.com/syncmodels/syncmodels

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0
	golang.org/x/sync v0.24.0
	gonum.org/v1/gonum v0.17.0
)
