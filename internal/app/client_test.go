package app

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectClient serves a's real server to the client c over the in-memory transport, speaking
// the protocol version ("" is the SDK's default); both ends close when the test ends.
func connectClient(t testing.TB, a *App, c *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := a.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := c.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connect serves a's real server to an in-memory client with the given options.
func connect(t testing.TB, a *App, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	return connectClient(t, a, mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts), version)
}

// contents calls tool and returns the text blocks of its result, so tests can see appended
// reminders, and whether it is an error.
func contents(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) ([]string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out, res.IsError
}

// callText calls tool and returns its result's text in one string, and whether it is an error.
func callText(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	texts, isErr := contents(t, cs, tool, args)
	return strings.Join(texts, ""), isErr
}
