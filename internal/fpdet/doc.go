// Package fpdet (wip).
package fpdet
