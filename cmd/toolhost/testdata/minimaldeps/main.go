// Command minimaldeps is the minimal reference server (testdata/minimal) linked with every
// package toolhost links, through blank imports: the same package initialisation at start,
// none of toolhost's own start-up work. BenchmarkColdStart measures it next to both, so the
// part of toolhost's cold start that its dependencies alone cost is a number, not a guess.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "toolhost/authz/cmdrules"
	_ "toolhost/internal/app"
	_ "toolhost/internal/console"
)

type echoArgs struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "minimaldeps", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
