// Command syncbench trains and compares synchronization models for
// data-parallel machine learning.
//
// Usage:
//
//	syncbench [train] [flags]   train one algorithm in one process
//
// With no arguments it runs `train` on embedded synthetic data (K-means on
// Gaussian blobs generated from a fixed seed). Run `syncbench train -h` for
// the flags; README.md lists them with examples.
//
// Exit status: 0 on success, 1 when the data or the run fails (the message
// names the file, line or iteration), 2 for a usage error.
package main
