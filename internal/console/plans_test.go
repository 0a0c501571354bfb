package console

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"toolhost/internal/embed"
	"toolhost/internal/memory"
	"toolhost/internal/todo"
)

// newMemoryFixture is a console with a memory service on the lexical embedder, configured by
// cfg otherwise.
func newMemoryFixture(t *testing.T, cfg memory.Config) (*fixture, *memory.Service) {
	t.Helper()
	var svc *memory.Service
	f := newFixture(t, func(o *Options) {
		emb, err := embed.New("lexical")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Embedder = emb
		svc = memory.New(o.Store, cfg)
		t.Cleanup(func() { svc.Close() })
		o.Memory = svc
	})
	return f, svc
}

// TestPlansAndMemory: todo lists per conversation; memory search, delete and a document
// import whose progress ends at done.
func TestPlansAndMemory(t *testing.T) {
	f, svc := newMemoryFixture(t, memory.Config{})
	ctx := context.Background()
	if _, err := todo.Write(ctx, f.c.o.Store, "conv-a", []todo.Todo{{ID: 1, Title: "Fix the parser", Status: todo.StatusInProgress}}); err != nil {
		t.Fatal(err)
	}
	st, err := svc.Store(ctx, memory.StoreRequest{Conversation: "conv-a", Content: "The deploy script lives in tools/deploy.sh and needs VPN."})
	if err != nil {
		t.Fatal(err)
	}
	cl := f.client(t)
	csrf := f.signIn(t, cl)

	if _, page := f.get(t, cl, "/plans"); !strings.Contains(page, "Fix the parser") || !strings.Contains(page, "conv-a") {
		t.Errorf("plans page lacks the todo list:\n%s", page)
	}
	if _, page := f.get(t, cl, "/memory?conversation=conv-a&q=deploy+script"); !strings.Contains(page, "tools/deploy.sh") {
		t.Errorf("search lacks the memory:\n%s", page)
	}
	// An import through the form, followed to its end.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", csrf)
	mw.WriteField("conversation", "conv-a")
	fw, _ := mw.CreateFormFile("file", "guide.md")
	fw.Write([]byte(strings.Repeat("# Section\n\nThe release checklist says to tag, build and announce.\n\n", 40)))
	mw.Close()
	req, _ := http.NewRequest("POST", f.srv.URL+"/memory/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", f.srv.URL)
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("import: %d", resp.StatusCode)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := f.c.importsData(ctx, nil, nil)
		imports := data["Imports"].([]importView)
		if len(imports) == 1 && imports[0].Finished {
			if imports[0].Error != "" || imports[0].Percent != 100 {
				t.Fatalf("import ended with %+v", imports[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("import not finished: %+v", imports)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, page := f.get(t, cl, "/memory?conversation=conv-a"); !strings.Contains(page, "guide.md") || !strings.Contains(page, `<progress max="100" value="100">`) {
		t.Errorf("memory page after the import lacks the document or its finished bar:\n%s", page)
	}
	// Delete needs the CSRF token like every change, then removes the memory.
	form := url.Values{"conversation": {"conv-a"}, "id": {strconv.FormatUint(st.ID, 10)}}
	if code, _ := f.post(t, cl, "/memory/delete", form, nil); code != http.StatusForbidden {
		t.Errorf("delete without CSRF: %d", code)
	}
	form.Set("csrf", csrf)
	if code, body := f.post(t, cl, "/memory/delete", form, nil); code != http.StatusSeeOther {
		t.Fatalf("delete: %d\n%s", code, body)
	}
	if _, err := svc.Get(ctx, "conv-a", st.ID); err == nil {
		t.Error("the memory is still there after delete")
	}
}

// TestStandingInstructionsPage: the memory page lists the user's standing instructions with the
// words they were given in, and removes one (with the CSRF token, like every change).
func TestStandingInstructionsPage(t *testing.T) {
	f, svc := newMemoryFixture(t, memory.Config{})
	ctx := context.Background()
	in, err := svc.Store(ctx, memory.StoreRequest{Conversation: "conv-a", Kind: memory.KindInstruction, Scope: "user",
		Content: "Answer in German.", UserWords: "antworte bitte immer auf Deutsch"})
	if err != nil {
		t.Fatal(err)
	}
	fact, err := svc.Store(ctx, memory.StoreRequest{Conversation: "conv-a", Content: "The shop runs on port 8080."})
	if err != nil {
		t.Fatal(err)
	}
	cl := f.client(t)
	csrf := f.signIn(t, cl)
	if _, page := f.get(t, cl, "/memory"); !strings.Contains(page, "Answer in German.") || !strings.Contains(page, "antworte bitte immer auf Deutsch") ||
		!strings.Contains(page, `action="/memory/forget"`) {
		t.Fatalf("memory page lacks the instruction:\n%s", page)
	}
	form := url.Values{"id": {strconv.FormatUint(in.ID, 10)}}
	if code, _ := f.post(t, cl, "/memory/forget", form, nil); code != http.StatusForbidden {
		t.Errorf("forget without CSRF: %d", code)
	}
	form.Set("csrf", csrf)
	if code, body := f.post(t, cl, "/memory/forget", url.Values{"csrf": {csrf}, "id": {strconv.FormatUint(fact.ID, 10)}}, nil); code != http.StatusBadRequest {
		t.Errorf("forget of a fact: %d\n%s", code, body)
	}
	if code, body := f.post(t, cl, "/memory/forget", form, nil); code != http.StatusSeeOther {
		t.Fatalf("forget: %d\n%s", code, body)
	}
	if ins, _ := svc.Instructions(ctx, ""); len(ins) != 0 {
		t.Errorf("instructions after forget = %+v", ins)
	}
	if _, page := f.get(t, cl, "/memory"); strings.Contains(page, "Answer in German.") {
		t.Error("the memory page still lists the removed instruction")
	}
}

// TestImportUploadSizeBothSides: the memory page takes a document up to the memory service's
// limit and refuses a longer one saying the limit, whether the form's body is within its bound
// (the limit and the form's fields) or over it.
func TestImportUploadSizeBothSides(t *testing.T) {
	const limit = 200
	f, _ := newMemoryFixture(t, memory.Config{MaxDocumentBytes: limit})
	cl := f.client(t)
	csrf := f.signIn(t, cl)
	for _, tt := range []struct {
		name string
		size int
		want int // status
	}{
		{"just under", limit - 1, http.StatusSeeOther},
		{"at", limit, http.StatusSeeOther},
		{"just over", limit + 1, http.StatusBadRequest},
		{"far over", limit + 2*maxFormBytes, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			mw.WriteField("csrf", csrf)
			mw.WriteField("conversation", "conv-a")
			fw, _ := mw.CreateFormFile("file", strings.ReplaceAll(tt.name, " ", "-")+".md")
			fw.Write([]byte(strings.Repeat("word ", tt.size)[:tt.size]))
			mw.Close()
			req, _ := http.NewRequest("POST", f.srv.URL+"/memory/import", &body)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			req.Header.Set("Origin", f.srv.URL)
			resp, err := cl.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("an upload of %d bytes (limit %d) = %d, want %d\n%.300s", tt.size, limit, resp.StatusCode, tt.want, page)
			}
			if tt.want != http.StatusSeeOther && !strings.Contains(string(page), "larger than 200 B") {
				t.Errorf("the refusal of %d bytes does not name the limit:\n%.500s", tt.size, page)
			}
		})
	}
}
