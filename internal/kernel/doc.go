// Package kernel holds the numeric inner loops of the workloads: dot
// products, squared distances, axpy and blocked row-times-rows products, in
// float64 and float32. Every exported function has a pure-Go implementation;
// faster variants may be selected at start-up, but results must agree with
// the pure-Go reference to rounding (see the tests).
package kernel
