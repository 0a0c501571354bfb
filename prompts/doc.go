// Package prompts holds the embedded system prompt and mini prompts served as MCP prompts, plus
// user prompts loaded from a configuration directory.
package prompts
