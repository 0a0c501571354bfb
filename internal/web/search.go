package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// SearchResult is one hit of a search backend.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"content"`
}

// Search asks a SearXNG instance (its base URL, e.g. http://127.0.0.1:8888) for query and
// returns at most n results. The instance must have the JSON format enabled
// (search.formats: [html, json] in its settings.yml).
func (c *Client) Search(ctx context.Context, base, query string, n int) ([]SearchResult, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, &Error{Code: CodeInvalidValue, Message: "query is empty"}
	}
	if len(query) > 500 {
		return nil, &Error{Code: CodeInvalidValue, Message: "query is longer than 500 bytes"}
	}
	u, err := url.Parse(strings.TrimRight(base, "/") + "/search")
	if err != nil {
		return nil, fmt.Errorf("search backend url: %w", err)
	}
	u.RawQuery = url.Values{"q": {query}, "format": {"json"}}.Encode()
	resp, err := c.Do(ctx, Request{Method: "GET", URL: u.String(), Accept: "application/json", MaxBytes: 4 << 20})
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		return nil, &Error{Code: CodeSearchFailed, Message: fmt.Sprintf("the search backend answered %s", resp.Status),
			Next: "check [web] search_url; SearXNG needs the json format enabled"}
	}
	var body struct {
		Results []SearchResult `json:"results"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		return nil, &Error{Code: CodeSearchFailed, Message: "the search backend did not answer JSON", Err: err,
			Next: "check [web] search_url; SearXNG needs the json format enabled"}
	}
	if n <= 0 || n > 20 {
		n = 10
	}
	out := body.Results[:min(n, len(body.Results))]
	for i := range out {
		out[i].Snippet = strings.Join(strings.Fields(out[i].Snippet), " ")
	}
	return out, nil
}
