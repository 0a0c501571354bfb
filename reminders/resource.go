package reminders

import (
	"net/url"
	"strings"
)

// ResourceTemplate is the URI template under which the tool layer serves a conversation's todo
// reminder as an MCP resource; [ResourceURI] and [ConversationFromURI] convert both ways so the
// escaping rule lives in one place.
const ResourceTemplate = "toolhost://conversations/{id}/todos"

const (
	resourcePrefix = "toolhost://conversations/"
	resourceSuffix = "/todos"
)

// ResourceURI is the resource URI of conversation conv's reminder. The id is path-escaped, so
// any conversation id round-trips through [ConversationFromURI].
func ResourceURI(conv string) string {
	return resourcePrefix + url.PathEscape(conv) + resourceSuffix
}

// ConversationFromURI extracts the conversation id from a URI made by [ResourceURI]; ok is false
// for any other URI.
func ConversationFromURI(uri string) (conv string, ok bool) {
	rest, ok := strings.CutPrefix(uri, resourcePrefix)
	if !ok {
		return "", false
	}
	esc, ok := strings.CutSuffix(rest, resourceSuffix)
	if !ok || esc == "" || strings.Contains(esc, "/") {
		return "", false
	}
	conv, err := url.PathUnescape(esc)
	if err != nil || conv == "" {
		return "", false
	}
	return conv, true
}
