package reminders

import "testing"

func TestResourceURI(t *testing.T) {
	for _, conv := range []string{"c1", "dir:/home/u/project", "with space/and?query#frag", "ünï"} {
		uri := ResourceURI(conv)
		got, ok := ConversationFromURI(uri)
		if !ok || got != conv {
			t.Errorf("ConversationFromURI(ResourceURI(%q) = %q) = %q, %v; want %q", conv, uri, got, ok, conv)
		}
	}
	for _, uri := range []string{"", "toolhost://conversations//todos", "toolhost://conversations/a/b/todos",
		"toolhost://conversations/a/terminals", "file:///x", "toolhost://conversations/%zz/todos"} {
		if got, ok := ConversationFromURI(uri); ok {
			t.Errorf("ConversationFromURI(%q) = %q, true; want false", uri, got)
		}
	}
	if got := ResourceURI("a/b"); got != "toolhost://conversations/a%2Fb/todos" {
		t.Errorf("ResourceURI(a/b) = %q", got)
	}
}
