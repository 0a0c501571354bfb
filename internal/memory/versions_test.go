package memory

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"toolhost/internal/embed"
	"toolhost/store"
)

// useLite returns the built-in embedder, which these tests exist for: supersession is about
// how the real model scores real facts.
func useLite(t testing.TB) embed.Embedder {
	t.Helper()
	if raceEnabled {
		t.Skip("the built-in model is tens of times slower under the race detector; these run in the plain test run")
	}
	if !embed.BuiltinAvailable() {
		if os.Getenv("CI") != "" {
			t.Fatal("the built-in USE-Lite embedder is missing from this build (built with -tags nouselite?)")
		}
		t.Skip("the built-in USE-Lite embedder is not in this build")
	}
	return embed.NewUSELite()
}

// builtinService is a Service with USE-Lite on a fresh store.
func builtinService(t testing.TB) (*Service, *store.Store) {
	t.Helper()
	st := newTestStore(t)
	return New(st, Config{Embedder: useLite(t)}), st
}

// TestSupersedePort is the case from issue 14: "port 9090" after "port 8080" was refused as a
// near duplicate (0.96), so the model could not correct the fact.
func TestSupersedePort(t *testing.T) {
	ctx := context.Background()
	s, _ := builtinService(t)
	old := mustStore(t, s, StoreRequest{Conversation: "c", Content: "the API server listens on port 8080"})
	res := mustStore(t, s, StoreRequest{Conversation: "c", Content: "the API server listens on port 9090"})
	if res.Duplicate != NotDuplicate || res.Superseded != old.ID || res.ID == old.ID {
		t.Fatalf("Store(port 9090) = %+v, want a new memory superseding %d", res, old.ID)
	}
	if want := (FactChange{Kind: ChangeNumber, Old: "8080", New: "9090"}); res.Change == nil || *res.Change != want {
		t.Errorf("change = %+v, want %+v", res.Change, want)
	}
	if res.Existing != "the API server listens on port 8080" {
		t.Errorf("existing = %q, want the superseded text", res.Existing)
	}
	// The reminder of recent memories lists the new statement, not the superseded one.
	notes, err := s.Recent(ctx, "c", time.Time{})
	if err != nil || len(notes) != 1 || notes[0].ID != res.ID {
		t.Errorf("Recent = %+v, %v; want only memory %d", notes, err, res.ID)
	}
	hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "which port does the API server listen on"})
	if len(hits) == 0 || hits[0].ID != res.ID || hits[0].Supersedes != old.ID {
		t.Fatalf("Search = %+v, want the new version first, naming the one it supersedes", hits)
	}
	for _, h := range hits {
		if h.ID == old.ID {
			t.Errorf("Search returned the superseded memory %d", old.ID)
		}
	}
	// Both versions stay reachable by ID.
	before, err := s.Get(ctx, "c", old.ID)
	if err != nil {
		t.Fatal(err)
	}
	after, err := s.Get(ctx, "c", res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if before.Content != "the API server listens on port 8080" || before.SupersededBy != res.ID || before.Replaced.IsZero() ||
		!slices.Equal(before.Versions, []uint64{old.ID, res.ID}) {
		t.Errorf("Get(old) = %+v", before)
	}
	if after.Supersedes != old.ID || after.SupersededBy != 0 || !slices.Equal(after.Versions, []uint64{old.ID, res.ID}) {
		t.Errorf("Get(new) = %+v", after)
	}
	// An exact duplicate is still refused, with the existing ID: of the current version...
	if again := mustStore(t, s, StoreRequest{Conversation: "c", Content: "the API server listens on port 9090"}); again.Duplicate != ExactDuplicate || again.ID != res.ID {
		t.Errorf("storing the new text again = %+v, want an exact duplicate of %d", again, res.ID)
	}
	// ...while the old text again is the fact changing back: a third version.
	back := mustStore(t, s, StoreRequest{Conversation: "c", Content: "the API server listens on port 8080"})
	if back.Duplicate != NotDuplicate || back.Superseded != res.ID || back.Change == nil || back.Change.Kind != ChangeRevert {
		t.Errorf("storing the old text again = %+v, want a version superseding %d (revert)", back, res.ID)
	}
	if again := mustStore(t, s, StoreRequest{Conversation: "c", Content: "the API server listens on port 8080"}); again.Duplicate != ExactDuplicate || again.ID != back.ID {
		t.Errorf("after the revert, the same text = %+v, want an exact duplicate of %d", again, back.ID)
	}
	cols, err := s.Collections(ctx, "c")
	if err != nil || len(cols) != 1 || cols[0].Count != 1 || cols[0].Superseded != 2 {
		t.Errorf("Collections = %+v, %v; want 1 current memory and 2 earlier versions", cols, err)
	}
}

// TestSupersedeKinds stores pairs of facts with the real embedder: a fact whose number, name,
// path, negation or date changed supersedes the old one; a different fact that is merely similar
// (another subject, another predicate, another value in two places) is stored beside it, and a
// rewording of the same fact is refused as a duplicate.
func TestSupersedeKinds(t *testing.T) {
	tests := []struct {
		name       string
		prev, next string
		want       string // "supersede", "store", "duplicate"
		kind       ChangeKind
	}{
		{"number: upload size", "The max upload size is 10 MB.", "The max upload size is 25 MB.", "supersede", ChangeNumber},
		{"number: Go version", "Use Go 1.22 for this project.", "Use Go 1.26 for this project.", "supersede", ChangeNumber},
		{"name: on-call engineer", "The on-call engineer this week is Alice.", "The on-call engineer this week is Bob.", "supersede", ChangeName},
		{"name: contact", "Our contact at Acme is Jane Doe.", "Our contact at Acme is John Roe.", "supersede", ChangeName},
		{"number in words", "We meet Globex every four weeks on Mondays.", "We meet Globex every two weeks on Mondays.", "supersede", ChangeNumber},
		{"correction of a near duplicate", "The billing retro is every four weeks.", "Correction: the billing retro is every two weeks, not every four.", "supersede", ChangeUpdate},
		{"correction of another value", "ledger listens on port 8443.", "Correction: ledger is on port 9443 now, not 8443.", "supersede", ChangeUpdate},
		{"path", "The config file lives at /etc/app/config.toml.", "The config file lives at /opt/app/config.toml.", "supersede", ChangePath},
		{"negation", "The cache is enabled in production.", "The cache is not enabled in production.", "supersede", ChangeNegation},
		{"negated form", "The cache is enabled in production.", "The cache is disabled in production.", "supersede", ChangeNegation},
		{"date", "The release is scheduled for 2024-05-01.", "The release is scheduled for 2024-06-15.", "supersede", ChangeDate},
		{"weekday", "Deploys happen on Tuesdays after standup.", "Deploys happen on Thursdays after standup.", "supersede", ChangeDate},

		{"other subject", "The staging database is read-only on Fridays.", "The production database is read-only on Fridays.", "store", ""},
		{"other subject and value", "The API server listens on port 8080.", "The metrics server listens on port 9090.", "store", ""},
		{"other predicate", "The API server listens on port 8080.", "The API server logs to /var/log/api.log.", "store", ""},
		{"other table", "The team uses PostgreSQL 15 for the orders database.", "The team uses PostgreSQL 15 for the users database.", "store", ""},
		{"a list", "Server 1 is at 10.0.0.1.", "Server 2 is at 10.0.0.2.", "store", ""},
		{"name first: another owner", "Alice owns the billing service.", "Bob owns the billing service.", "store", ""},
		{"another customer", "Our contact at Acme is Jane Doe.", "Our contact at Globex is Jane Doe.", "store", ""},
		{"another customer's correction", "Our contact at Acme is Jane Doe.", "Correction: our contact at Globex is John Roe now.", "store", ""},
		{"a longer customer's correction", "Stark Freight contact: Jane Doe, jane@stark.example", "Jane Doe left Stark Freight Asia; our new contact there is John Roe.", "store", ""},
		{"a new owner named first", "Owner of push-service: web team (lead Nadia Müller)", "push-service changed hands: Paula Costa is the lead now, Nadia Müller moved on.", "supersede", ChangeUpdate},

		{"reworded", "The API server listens on port 8080.", "The API server is listening on port 8080.", "duplicate", ""},
		{"punctuation", "The API server listens on port 8080.", "the API server listens on port 8080", "duplicate", ""},
	}
	s, _ := builtinService(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each pair in its own topic, so pairs do not interact.
			scope := "topic:pair" + string(rune('a'+i))
			prev := mustStore(t, s, StoreRequest{Conversation: "c", Scope: scope, Content: tt.prev})
			next := mustStore(t, s, StoreRequest{Conversation: "c", Scope: scope, Content: tt.next})
			hits := mustSearch(t, s, SearchRequest{Conversation: "c", Scopes: []string{scope}, Query: tt.next, Limit: 10, Threshold: f32(-1)})
			switch tt.want {
			case "supersede":
				if next.Superseded != prev.ID || next.Change == nil || next.Change.Kind != tt.kind {
					t.Fatalf("Store(%q) after %q = %+v, want it to supersede %d (%s)", tt.next, tt.prev, next, prev.ID, tt.kind)
				}
				if !slices.Equal(hitIDs(hits), []uint64{next.ID}) {
					t.Errorf("Search = %v, want only the new version %d", hitIDs(hits), next.ID)
				}
			case "store":
				if next.Duplicate != NotDuplicate || next.Superseded != 0 {
					t.Fatalf("Store(%q) after %q = %+v, want a separate memory", tt.next, tt.prev, next)
				}
				if len(hits) != 2 {
					t.Errorf("Search = %v, want both facts", hitIDs(hits))
				}
			case "duplicate":
				if next.Duplicate != NearDuplicate || next.ID != prev.ID {
					t.Fatalf("Store(%q) after %q = %+v, want a near duplicate of %d", tt.next, tt.prev, next, prev.ID)
				}
			}
		})
	}
}

func TestUpdateMemory(t *testing.T) {
	ctx := context.Background()
	s, _ := builtinService(t)
	a := mustStore(t, s, StoreRequest{Conversation: "c", Content: "The staging database is read-only on Fridays.", Tags: []string{"db"}})
	other := mustStore(t, s, StoreRequest{Conversation: "c", Content: "Deployments to eu-west-1 need approval from the platform team."})
	foreign := mustStore(t, s, StoreRequest{Conversation: "someone-else", Content: "A private note of another conversation."})

	// New content: a new version that supersedes the memory, keeping its tags.
	up, err := s.Update(ctx, UpdateRequest{Conversation: "c", ID: a.ID, Content: "The staging database is read-only on weekends."})
	if err != nil {
		t.Fatal(err)
	}
	if up.ID == a.ID || up.Superseded != a.ID || up.Change == nil || up.Change.Kind != ChangeDate {
		t.Fatalf("Update(content) = %+v, want a new version superseding %d (date)", up, a.ID)
	}
	m, err := s.Get(ctx, "c", up.ID)
	if err != nil || m.Content != "The staging database is read-only on weekends." || !slices.Equal(m.Tags, []string{"db"}) {
		t.Fatalf("Get(new version) = %+v, %v", m, err)
	}
	// An update naming the old ID goes to the newest version.
	up2, err := s.Update(ctx, UpdateRequest{Conversation: "c", ID: a.ID, Content: "The staging database is read-only every night."})
	if err != nil {
		t.Fatal(err)
	}
	if up2.Head != up.ID || up2.Superseded != up.ID || up2.Change.Kind != ChangeUpdate {
		t.Errorf("Update(old id) = %+v, want the head %d superseded (a free-form update)", up2, up.ID)
	}
	// Tags alone change the memory in place.
	up3, err := s.Update(ctx, UpdateRequest{Conversation: "c", ID: up2.ID, Tags: []string{"DB", "ops"}})
	if err != nil || up3.ID != up2.ID || up3.Superseded != 0 {
		t.Fatalf("Update(tags) = %+v, %v; want memory %d changed in place", up3, err, up2.ID)
	}
	if hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "staging database read-only", Tags: []string{"ops"}}); len(hits) != 1 || hits[0].ID != up2.ID {
		t.Errorf("Search(tag ops) = %v, want [%d]", hitIDs(hits), up2.ID)
	}
	m, _ = s.Get(ctx, "c", a.ID)
	if !slices.Equal(m.Versions, []uint64{a.ID, up.ID, up2.ID}) {
		t.Errorf("versions = %v, want %v", m.Versions, []uint64{a.ID, up.ID, up2.ID})
	}

	for _, tt := range []struct {
		name    string
		req     UpdateRequest
		wantErr error
		dup     uint64
	}{
		{"nothing changes", UpdateRequest{Conversation: "c", ID: up2.ID, Content: "The staging database is read-only every night.", Tags: []string{"db", "ops"}}, ErrNoChange, 0},
		{"content of another memory", UpdateRequest{Conversation: "c", ID: up2.ID, Content: "Deployments to eu-west-1 need approval from the platform team."}, nil, other.ID},
		{"another conversation's memory", UpdateRequest{Conversation: "c", ID: foreign.ID, Content: "mine now"}, ErrNotFound, 0},
		{"missing", UpdateRequest{Conversation: "c", ID: 9999, Content: "x"}, ErrNotFound, 0},
		{"no id", UpdateRequest{Conversation: "c", Content: "x"}, ErrBadRequest, 0},
		{"nothing given", UpdateRequest{Conversation: "c", ID: up2.ID}, ErrBadRequest, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Update(ctx, tt.req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Update = %+v, %v; want %v", res, err, tt.wantErr)
				}
				return
			}
			if err != nil || res.Duplicate != tt.dup {
				t.Fatalf("Update = %+v, %v; want duplicate %d", res, err, tt.dup)
			}
		})
	}

	// Deleting any version deletes the chain: no older statement of the fact comes back.
	n, err := s.Delete(ctx, DeleteRequest{Conversation: "c", ID: up.ID})
	if err != nil || n != 3 {
		t.Fatalf("Delete(middle version) = %d, %v; want the 3 versions", n, err)
	}
	if hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "staging database read-only", Threshold: f32(-1), Limit: 10}); slices.Contains(hitIDs(hits), a.ID) || slices.Contains(hitIDs(hits), up2.ID) {
		t.Errorf("after the delete, Search = %v", hitIDs(hits))
	}
	if _, err := s.Get(ctx, "c", a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(deleted first version) = %v, want ErrNotFound", err)
	}
}

// TestSupersedeAcrossProcesses: a second toolhost process on the same state directory stores the
// newer version; this process's index (built before) follows: search returns the newest only.
func TestSupersedeAcrossProcesses(t *testing.T) {
	s, st := builtinService(t)
	old := mustStore(t, s, StoreRequest{Conversation: "c", Scope: "topic:infra", Content: "the API server listens on port 8080"})
	if hits := mustSearch(t, s, SearchRequest{Conversation: "c", Scopes: []string{"infra"}, Query: "API server port"}); len(hits) != 1 {
		t.Fatalf("before the child, Search = %v", hitIDs(hits))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+st.Dir(), childContentEnv+"=the API server listens on port 9090")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var res StoreResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	if res.Superseded != old.ID {
		t.Fatalf("the child's store = %+v, want it to supersede %d", res, old.ID)
	}
	hits := mustSearch(t, s, SearchRequest{Conversation: "c", Scopes: []string{"infra"}, Query: "API server port", Threshold: f32(-1)})
	if !slices.Equal(hitIDs(hits), []uint64{res.ID}) {
		t.Errorf("after the child, Search = %v, want only the child's version %d", hitIDs(hits), res.ID)
	}
	// A third process, started afterwards, builds its index without the old version.
	fresh := New(st, Config{Embedder: useLite(t)})
	if hits := mustSearch(t, fresh, SearchRequest{Conversation: "c", Scopes: []string{"infra"}, Query: "API server port", Threshold: f32(-1)}); !slices.Equal(hitIDs(hits), []uint64{res.ID}) {
		t.Errorf("a fresh index = %v, want only %d", hitIDs(hits), res.ID)
	}
}
