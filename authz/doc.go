// Package authz decides whether an operation may touch a path: the working-directory guard,
// protected paths, time-limited grants and approval requests. It knows nothing about MCP.
package authz
