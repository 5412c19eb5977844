// Command syncbench compares and trains synchronization models for
// data-parallel machine learning.
//
// Usage:
//
//	syncbench [compare] [flags]   run several sync models on one workload and compare them
//	syncbench train [flags]       train one algorithm in one process
//	syncbench provision [flags]   plan a DOLL job: how many workers on preemptible instances (docs/provision.md)
//	syncbench reproduce PAPER     rerun a paper's evaluation (fsp, mlless) into docs/reproduce/PAPER.md
//	syncbench help
//
// With no arguments it runs `compare`: BSP, SSP(3), ASP, quorum(0.9) and
// quorum(0.75) on embedded synthetic data (logistic regression on 50,000
// generated points) with 16 workers, 4 of which pause 32 ms after every
// 1,000 points, in virtual time, and prints a table of time to target,
// final objective, iterations, server versions, wait share and bytes sent.
// Same seed, same table. docs/compare.md describes the flags and columns;
// `syncbench train -h` and README.md describe train.
//
// Exit status: 0 on success, 1 when the data or the run fails (the message
// names the file, line or run), 2 for a usage error.
package main
