// Package store keeps toolhost state in one bbolt file that several toolhost processes may share:
// conversations (todos, state, terminal metadata), grants, approval requests, executions and memories.
package store
