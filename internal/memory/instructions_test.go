package memory

import (
	"context"
	"errors"
	"strings"
	"testing"

	"toolhost/reminders"
)

func TestStoreInstruction(t *testing.T) {
	s, _ := newLexical(t, Config{})
	const project = "/home/me/shop"
	tests := []struct {
		name      string
		req       StoreRequest
		wantErr   error
		wantScope string
	}{
		{"project by default", StoreRequest{Kind: KindInstruction, Content: "Always run the tests before committing.", UserWords: "always run the tests before you commit", Project: project}, nil, "project:" + project},
		{"user scope", StoreRequest{Kind: KindInstruction, Scope: "user", Content: "Answer in German.", UserWords: "antworte bitte auf Deutsch"}, nil, UserScope},
		{"no project: the user's", StoreRequest{Kind: KindInstruction, Content: "Use tabs.", UserWords: "use tabs please"}, nil, UserScope},
		{"without the user's words", StoreRequest{Kind: KindInstruction, Content: "Never push to main.", Project: project}, ErrBadRequest, ""},
		{"in a topic", StoreRequest{Kind: KindInstruction, Scope: "topic:ops", Content: "Never push to main.", UserWords: "never push to main", Project: project}, ErrBadRequest, ""},
		{"in the conversation", StoreRequest{Kind: KindInstruction, Scope: "conversation", Content: "Never push to main.", UserWords: "never push to main", Project: project}, ErrBadRequest, ""},
		{"unknown kind", StoreRequest{Kind: "rule", Content: "Never push to main."}, ErrBadRequest, ""},
		{"a fact's project is a topic", StoreRequest{Scope: "project", Content: "The shop runs on port 8080.", Project: project}, nil, "topic:project"},
		{"a fact's user is a topic", StoreRequest{Scope: "user", Content: "The shop runs on port 8081."}, nil, "topic:user"},
		{"project without a project", StoreRequest{Kind: KindInstruction, Scope: "project", Content: "Never push to main.", UserWords: "never push to main"}, ErrBadRequest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Conversation = "c"
			res, err := s.Store(context.Background(), tt.req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Store() error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && res.Scope != tt.wantScope {
				t.Errorf("Store().Scope = %q, want %q", res.Scope, tt.wantScope)
			}
		})
	}
	ins, err := s.Instructions(context.Background(), project)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, in := range ins {
		texts = append(texts, in.Text)
	}
	if got, want := strings.Join(texts, " | "), "Answer in German. | Use tabs. | Always run the tests before committing."; got != want {
		t.Errorf("Instructions(project) = %q, want %q (the user's first, no facts)", got, want)
	}
	if other, _ := s.Instructions(context.Background(), "/elsewhere"); len(other) != 2 {
		t.Errorf("Instructions(another project) = %v, want only the user's two", other)
	}
	if all, _ := s.Instructions(context.Background(), ""); len(all) != 3 {
		t.Errorf("Instructions(\"\") = %v, want all three", all)
	}
	if ins[0].UserWords != "antworte bitte auf Deutsch" {
		t.Errorf("UserWords = %q, want the user's words kept", ins[0].UserWords)
	}
}

// A changed instruction replaces the old one in the list; Forget removes it; a fact is not an
// instruction to forget.
func TestInstructionVersionsAndForget(t *testing.T) {
	ctx := context.Background()
	s, _ := newLexical(t, Config{})
	a := mustStore(t, s, StoreRequest{Conversation: "c", Kind: KindInstruction, Scope: "user", Content: "Run the tests before every commit.", UserWords: "run the tests before every commit"})
	b, err := s.Update(ctx, UpdateRequest{Conversation: "c", ID: a.ID, Content: "Run the tests and the linter before every commit."})
	if err != nil {
		t.Fatal(err)
	}
	ins, _ := s.Instructions(ctx, "")
	if len(ins) != 1 || ins[0].ID != b.ID || ins[0].UserWords == "" {
		t.Fatalf("Instructions after an update = %+v, want only %d with the user's words", ins, b.ID)
	}
	fact := mustStore(t, s, StoreRequest{Conversation: "c", Content: "The linter is golangci-lint 1.59."})
	if err := s.Forget(ctx, fact.ID); !errors.Is(err, ErrBadRequest) {
		t.Errorf("Forget(a fact) = %v, want ErrBadRequest", err)
	}
	if err := s.Forget(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("Forget(999) = %v, want ErrNotFound", err)
	}
	if err := s.Forget(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if ins, _ := s.Instructions(ctx, ""); len(ins) != 0 {
		t.Errorf("Instructions after Forget = %+v, want none", ins)
	}
	if _, err := s.Get(ctx, "c", a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(the earlier version) after Forget = %v, want it gone with the chain", err)
	}
}

// The reminder Builder reads the memory Service's instructions: stored, they come back on the
// next call; forgotten, the model is told once.
func TestInstructionReminders(t *testing.T) {
	ctx := context.Background()
	s, st := newLexical(t, Config{})
	cfg := reminders.DefaultConfig()
	cfg.Project = "/home/me/shop"
	b := reminders.New(st, cfg, s)
	r := mustStore(t, s, StoreRequest{Conversation: "c", Kind: KindInstruction, Content: "Always run the tests before committing.",
		UserWords: "always run the tests before committing", Project: cfg.Project})
	block, ok, err := b.Next(ctx, "c")
	if err != nil || !ok || !strings.Contains(block, "Always run the tests before committing. [project]") {
		t.Fatalf("Next after storing an instruction = %q, %v, %v", block, ok, err)
	}
	if err := s.Forget(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	block, ok, _ = b.Next(ctx, "c")
	if !ok || !strings.Contains(block, "removed the standing instructions") || strings.Contains(block, "Always run") {
		t.Errorf("Next after Forget = %q, %v", block, ok)
	}
}
