package embed

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeVector is what the test servers return for a text: unnormalised, and distinct per text.
func fakeVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	v[0] = float32(len(text))
	v[1] = 3
	return v
}

// recorder keeps the request bodies a test server received.
type recorder struct {
	mu       sync.Mutex
	paths    []string
	batches  [][]string
	authHdrs []string
}

func (rec *recorder) add(r *http.Request, texts []string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.paths = append(rec.paths, r.URL.Path)
	rec.batches = append(rec.batches, texts)
	rec.authHdrs = append(rec.authHdrs, r.Header.Get("Authorization"))
}

func ollamaServer(t *testing.T, rec *recorder, legacyOnly bool, dim int) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	if !legacyOnly {
		mux.HandleFunc("POST /api/embed", func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Model string   `json:"model"`
				Input []string `json:"input"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if req.Model != "nomic" {
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"error":"model \"` + req.Model + `\" not found, try pulling it first"}`))
				return
			}
			rec.add(r, req.Input)
			var resp struct {
				Embeddings [][]float32 `json:"embeddings"`
			}
			for _, in := range req.Input {
				resp.Embeddings = append(resp.Embeddings, fakeVector(in, dim))
			}
			json.NewEncoder(w).Encode(resp)
		})
	}
	mux.HandleFunc("POST /api/embeddings", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model  string `json:"model"`
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.add(r, []string{req.Prompt})
		json.NewEncoder(w).Encode(map[string]any{"embedding": fakeVector(req.Prompt, dim)})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func openAIServer(t *testing.T, rec *recorder, handle func(w http.ResponseWriter, r *http.Request, input []string) bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.add(r, req.Input)
		if handle != nil && handle(w, r, req.Input) {
			return
		}
		type item struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- { // out of order on purpose
			data = append(data, item{"embedding", i, fakeVector(req.Input[i], 4)})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func checkFakeVectors(t *testing.T, texts []string, got [][]float32, dim int) {
	t.Helper()
	if len(got) != len(texts) {
		t.Fatalf("got %d vectors for %d texts", len(got), len(texts))
	}
	for i, text := range texts {
		want := fakeVector(text, dim)
		if strings.TrimSpace(text) == "" {
			want = fallbackVector(dim)
		}
		normalize(want)
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Errorf("vector for %q (-want +got):\n%s", text, diff)
		}
	}
}

func TestOllama(t *testing.T) {
	tests := []struct {
		name        string
		legacyOnly  bool
		batch       int
		texts       []string
		wantPaths   []string
		wantBatches [][]string
	}{
		{
			name:        "batched /api/embed",
			batch:       2,
			texts:       []string{"a", "bb", "ccc"},
			wantPaths:   []string{"/api/embed", "/api/embed"},
			wantBatches: [][]string{{"a", "bb"}, {"ccc"}},
		},
		{
			name:        "legacy /api/embeddings one text per request",
			legacyOnly:  true,
			texts:       []string{"a", "bb"},
			wantPaths:   []string{"/api/embeddings", "/api/embeddings"},
			wantBatches: [][]string{{"a"}, {"bb"}},
		},
		{
			name:        "empty text not sent",
			texts:       []string{"a", "  ", ""},
			wantPaths:   []string{"/api/embed"},
			wantBatches: [][]string{{"a"}},
		},
		{
			name:        "only empty texts probe the dimension",
			texts:       []string{""},
			wantPaths:   []string{"/api/embed"},
			wantBatches: [][]string{{"."}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			srv := ollamaServer(t, rec, tt.legacyOnly, 3)
			o := NewOllama(RemoteConfig{BaseURL: srv.URL, Model: "nomic", BatchSize: tt.batch})
			got, err := o.Embed(context.Background(), tt.texts)
			if err != nil {
				t.Fatalf("Embed: %v", err)
			}
			checkFakeVectors(t, tt.texts, got, 3)
			if diff := cmp.Diff(tt.wantPaths, rec.paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantBatches, rec.batches); diff != "" {
				t.Errorf("batches (-want +got):\n%s", diff)
			}
			if o.Dim() != 3 {
				t.Errorf("Dim() after Embed = %d, want 3", o.Dim())
			}
		})
	}
}

func TestOllamaModelNotFound(t *testing.T) {
	rec := &recorder{}
	srv := ollamaServer(t, rec, false, 3)
	o := NewOllama(RemoteConfig{BaseURL: srv.URL, Model: "missing"})
	_, err := o.Embed(context.Background(), []string{"a"})
	if !errors.Is(err, ErrRemoteStatus) {
		t.Fatalf("Embed error = %v, want ErrRemoteStatus", err)
	}
	for _, want := range []string{"404", `model "missing" not found`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if o.legacy.Load() {
		t.Error("a missing model switched the embedder to the legacy endpoint")
	}
}

func TestOpenAI(t *testing.T) {
	t.Setenv("TOOLHOST_TEST_KEY", "sk-secret")
	rec := &recorder{}
	srv := openAIServer(t, rec, nil)
	texts := []string{"one", "two", "three", "", "four", "five"}
	o := NewOpenAI(RemoteConfig{BaseURL: srv.URL + "/v1", Model: "e5", APIKeyEnv: "TOOLHOST_TEST_KEY", BatchSize: 2})
	got, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	checkFakeVectors(t, texts, got, 4)
	if diff := cmp.Diff([][]string{{"one", "two"}, {"three", "four"}, {"five"}}, rec.batches); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
	for _, h := range rec.authHdrs {
		if h != "Bearer sk-secret" {
			t.Errorf("Authorization = %q, want %q", h, "Bearer sk-secret")
		}
	}
}

func TestRemoteErrors(t *testing.T) {
	const key = "sk-very-secret-key"
	long := strings.Repeat("quota exceeded ", 100)
	tests := []struct {
		name    string
		handle  func(w http.ResponseWriter, r *http.Request, input []string) bool
		keyEnv  string
		setKey  bool
		timeout time.Duration
		want    error
		wantIn  []string
	}{
		{
			name: "status with excerpt, key masked",
			handle: func(w http.ResponseWriter, r *http.Request, input []string) bool {
				w.WriteHeader(http.StatusUnauthorized)
				w.Write([]byte(`{"error":"invalid key ` + key + `"} ` + long))
				return true
			},
			keyEnv: "TOOLHOST_TEST_KEY", setKey: true,
			want:   ErrRemoteStatus,
			wantIn: []string{"401 Unauthorized", "invalid key [redacted]", "…"},
		},
		{
			name: "OpenAI-shaped JSON error reduced to its message",
			handle: func(w http.ResponseWriter, r *http.Request, input []string) bool {
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"error":{"message":"Rate limit for ` + key + `","type":"requests","code":null}}`))
				return true
			},
			keyEnv: "TOOLHOST_TEST_KEY", setKey: true,
			want:   ErrRemoteStatus,
			wantIn: []string{"429 Too Many Requests: Rate limit for [redacted]"},
		},
		{
			name:   "missing key",
			keyEnv: "TOOLHOST_TEST_UNSET_KEY",
			want:   ErrMissingKey,
			wantIn: []string{"$TOOLHOST_TEST_UNSET_KEY"},
		},
		{
			name: "not JSON",
			handle: func(w http.ResponseWriter, r *http.Request, input []string) bool {
				w.Write([]byte("<html>proxy login</html>"))
				return true
			},
			want: ErrRemoteResponse,
		},
		{
			name: "wrong vector count",
			handle: func(w http.ResponseWriter, r *http.Request, input []string) bool {
				w.Write([]byte(`{"data":[{"index":0,"embedding":[1,2]}]}`))
				return true
			},
			want:   ErrRemoteResponse,
			wantIn: []string{"1 vectors for 2 texts"},
		},
		{
			name: "inconsistent dimension",
			handle: func(w http.ResponseWriter, r *http.Request, input []string) bool {
				w.Write([]byte(`{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`))
				return true
			},
			want:   ErrDimMismatch,
			wantIn: []string{"3 dimensions, want 2"},
		},
		{
			name: "timeout",
			handle: func(w http.ResponseWriter, r *http.Request, input []string) bool {
				<-r.Context().Done() // hang until the client gives up
				return true
			},
			timeout: 50 * time.Millisecond,
			want:    context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setKey {
				t.Setenv(tt.keyEnv, key)
			}
			srv := openAIServer(t, &recorder{}, tt.handle)
			o := NewOpenAI(RemoteConfig{BaseURL: srv.URL, Model: "m", APIKeyEnv: tt.keyEnv, Timeout: tt.timeout})
			_, err := o.Embed(context.Background(), []string{"a", "b"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Embed error = %v, want %v", err, tt.want)
			}
			msg := err.Error()
			if strings.Contains(msg, key) {
				t.Errorf("error %q leaks the API key", msg)
			}
			if len(msg) > 600 {
				t.Errorf("error is %d bytes long, want a short excerpt", len(msg))
			}
			for _, want := range tt.wantIn {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not contain %q", msg, want)
				}
			}
		})
	}
}

func TestRemoteErrorHidesURLPassword(t *testing.T) {
	srv := openAIServer(t, &recorder{}, func(w http.ResponseWriter, r *http.Request, input []string) bool {
		http.Error(w, "nope", http.StatusForbidden)
		return true
	})
	base := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
	o := NewOpenAI(RemoteConfig{BaseURL: base, Model: "m"})
	_, err := o.Embed(context.Background(), []string{"a"})
	if !errors.Is(err, ErrRemoteStatus) {
		t.Fatalf("Embed error = %v, want ErrRemoteStatus", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %q shows the password from the base URL", err)
	}
	if !strings.Contains(err.Error(), "403") {
		t.Errorf("error %q does not name the status", err)
	}
}

func TestRemoteCancelled(t *testing.T) {
	srv := openAIServer(t, &recorder{}, nil)
	o := NewOpenAI(RemoteConfig{BaseURL: srv.URL, Model: "m"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := o.Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed(cancelled) error = %v, want context.Canceled", err)
	}
}
