package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Defaults for remote embedders.
const (
	DefaultRemoteTimeout   = 60 * time.Second
	DefaultRemoteBatchSize = 64
	DefaultRemoteMaxTokens = 512
	DefaultOllamaURL       = "http://localhost:11434"
	DefaultOpenAIURL       = "https://api.openai.com"
)

// maxResponseBytes bounds what a remote embedder reads from one response.
const maxResponseBytes = 256 << 20

// Errors of remote embedders. They are wrapped with the endpoint and details; the API key never
// appears in them.
var (
	// ErrRemoteStatus reports a non-2xx HTTP answer; the message carries the status and the start
	// of the body.
	ErrRemoteStatus = errors.New("embed: remote embedder returned an error status")
	// ErrRemoteResponse reports a 2xx answer that is not the expected JSON (wrong count of
	// vectors, empty vectors, undecodable body).
	ErrRemoteResponse = errors.New("embed: malformed remote embedder response")
	// ErrDimMismatch reports vectors whose length differs from the configured or first-seen
	// dimension; mixing them would corrupt an index.
	ErrDimMismatch = errors.New("embed: remote embedder changed dimension")
	// ErrMissingKey reports that the environment variable named for the API key is unset or empty.
	ErrMissingKey = errors.New("embed: API key environment variable is empty")
)

// RemoteConfig configures an embedder backed by an HTTP service.
type RemoteConfig struct {
	// BaseURL is the service root, e.g. http://localhost:11434 for Ollama or
	// https://api.openai.com (a trailing /v1 is accepted) for OpenAI-compatible servers. Empty
	// means the service's usual default.
	BaseURL string
	// Model is the embedding model's name, sent with every request and part of the ID.
	Model string
	// APIKeyEnv names the environment variable holding the bearer token; the key is read at each
	// request, so it is never stored in config files or logs. Empty means no Authorization header.
	APIKeyEnv string
	// Timeout bounds each HTTP request (DefaultRemoteTimeout if zero).
	Timeout time.Duration
	// BatchSize is the number of texts per request (DefaultRemoteBatchSize if zero).
	BatchSize int
	// HTTPClient is used for requests; nil means a private client with no extra settings.
	HTTPClient *http.Client
	// Dim is the model's dimension if known; zero means learned from the first response.
	Dim int
	// MaxTokens is the chunking window reported to callers (DefaultRemoteMaxTokens if zero).
	MaxTokens int
}

// Remote is an embedder backed by Ollama or an OpenAI-compatible /v1/embeddings endpoint. Texts
// are sent in batches of BatchSize; every vector is L2-normalised on arrival. Empty texts
// (nothing but white space) are not sent, since some services reject them; they get
// fallbackVector (every component 1/√Dim). If the dimension is not known yet, the first call
// learns it by embedding the probe text ".".
type Remote struct {
	kind   string // "ollama" or "openai"
	cfg    RemoteConfig
	base   string
	shown  string // base with any password in it masked, for error messages
	client *http.Client
	dim    atomic.Int64
	legacy atomic.Bool // Ollama without /api/embed: use /api/embeddings one text at a time
	id     string
}

// NewOllama returns an embedder using Ollama's /api/embed endpoint (falling back to the older
// /api/embeddings if the server does not have it). Its ID is "ollama:MODEL".
func NewOllama(cfg RemoteConfig) *Remote {
	return newRemote("ollama", DefaultOllamaURL, cfg)
}

// NewOpenAI returns an embedder using an OpenAI-compatible /v1/embeddings endpoint (OpenAI,
// llama.cpp server, LM Studio, vLLM, LocalAI ...). Its ID is "openai:MODEL@HOST".
func NewOpenAI(cfg RemoteConfig) *Remote {
	return newRemote("openai", DefaultOpenAIURL, cfg)
}

func newRemote(kind, defaultURL string, cfg RemoteConfig) *Remote {
	if cfg.BaseURL == "" {
		cfg.BaseURL = defaultURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRemoteTimeout
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultRemoteBatchSize
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultRemoteMaxTokens
	}
	r := &Remote{kind: kind, cfg: cfg, base: strings.TrimRight(cfg.BaseURL, "/"), client: cfg.HTTPClient}
	if r.client == nil {
		r.client = &http.Client{}
	}
	if kind == "openai" {
		r.base = strings.TrimSuffix(r.base, "/v1")
	}
	r.shown = r.base
	if u, err := url.Parse(r.base); err == nil {
		r.shown = u.Redacted()
	}
	if kind == "openai" {
		host := r.base
		if u, err := url.Parse(r.base); err == nil && u.Host != "" {
			host = u.Host
		}
		r.id = "openai:" + cfg.Model + "@" + host
	} else {
		r.id = "ollama:" + cfg.Model
	}
	r.dim.Store(int64(cfg.Dim))
	return r
}

// ID implements Embedder.
func (r *Remote) ID() string { return r.id }

// Dim implements Embedder: the configured dimension, else the one learned from the first
// response, else 0.
func (r *Remote) Dim() int { return int(r.dim.Load()) }

// MaxTokens implements Embedder with the configured window.
func (r *Remote) MaxTokens() int { return r.cfg.MaxTokens }

// CountTokens implements Embedder with an estimate: one token per four characters, rounded up,
// which is close for BPE tokenizers on English and errs high on code.
func (r *Remote) CountTokens(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}

// Embed implements Embedder.
func (r *Remote) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var send []string
	var sendIdx []int
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		send = append(send, t)
		sendIdx = append(sendIdx, i)
	}
	for start := 0; start < len(send); start += r.cfg.BatchSize {
		end := min(start+r.cfg.BatchSize, len(send))
		vecs, err := r.embedBatch(ctx, send[start:end])
		if err != nil {
			return nil, err
		}
		for j, v := range vecs {
			out[sendIdx[start+j]] = v
		}
	}
	if len(send) < len(texts) {
		if r.Dim() == 0 {
			if _, err := r.embedBatch(ctx, []string{"."}); err != nil {
				return nil, err
			}
		}
		for i := range out {
			if out[i] == nil {
				out[i] = fallbackVector(r.Dim())
			}
		}
	}
	return out, nil
}

// embedBatch sends one request and checks and normalises its vectors.
func (r *Remote) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var vecs [][]float32
	var err error
	switch {
	case r.kind == "openai":
		vecs, err = r.openAI(ctx, texts)
	case r.legacy.Load():
		vecs, err = r.ollamaLegacy(ctx, texts)
	default:
		vecs, err = r.ollama(ctx, texts)
	}
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%w: %s returned %d vectors for %d texts", ErrRemoteResponse, r.ID(), len(vecs), len(texts))
	}
	for _, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("%w: %s returned an empty vector", ErrRemoteResponse, r.ID())
		}
		want := r.dim.Load()
		if want == 0 {
			r.dim.CompareAndSwap(0, int64(len(v))) // the first response fixes the dimension
			want = r.dim.Load()
		}
		if int64(len(v)) != want {
			return nil, fmt.Errorf("%w: %s returned %d dimensions, want %d", ErrDimMismatch, r.ID(), len(v), want)
		}
		normalize(v)
	}
	return vecs, nil
}

func (r *Remote) ollama(ctx context.Context, texts []string) ([][]float32, error) {
	var resp struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	status, body, err := r.post(ctx, "/api/embed", map[string]any{"model": r.cfg.Model, "input": texts}, &resp)
	if err != nil {
		// Servers older than Ollama 0.3 have no /api/embed and answer with a plain 404 page.
		if status == http.StatusNotFound && !strings.Contains(strings.ToLower(string(body)), "model") {
			r.legacy.Store(true)
			return r.ollamaLegacy(ctx, texts)
		}
		return nil, err
	}
	return resp.Embeddings, nil
}

func (r *Remote) ollamaLegacy(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for _, t := range texts {
		var resp struct {
			Embedding []float32 `json:"embedding"`
		}
		if _, _, err := r.post(ctx, "/api/embeddings", map[string]any{"model": r.cfg.Model, "prompt": t}, &resp); err != nil {
			return nil, err
		}
		out = append(out, resp.Embedding)
	}
	return out, nil
}

func (r *Remote) openAI(ctx context.Context, texts []string) ([][]float32, error) {
	var resp struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	req := map[string]any{"model": r.cfg.Model, "input": texts, "encoding_format": "float"}
	if _, _, err := r.post(ctx, "/v1/embeddings", req, &resp); err != nil {
		return nil, err
	}
	sort.SliceStable(resp.Data, func(i, j int) bool { return resp.Data[i].Index < resp.Data[j].Index })
	out := make([][]float32, len(resp.Data))
	for i, d := range resp.Data {
		if d.Index != i {
			return nil, fmt.Errorf("%w: %s returned indexes that are not 0..%d", ErrRemoteResponse, r.ID(), len(texts)-1)
		}
		out[i] = d.Embedding
	}
	return out, nil
}

// post sends a JSON request and decodes a 2xx JSON answer into v. On a non-2xx answer it
// returns the status and up to 4 KiB of the body along with an ErrRemoteStatus error.
func (r *Remote) post(ctx context.Context, path string, req, v any) (int, []byte, error) {
	payload, err := json.Marshal(req)
	if err != nil {
		return 0, nil, fmt.Errorf("encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	endpoint := r.shown + path
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, r.base+path, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, fmt.Errorf("embed via %s: %w", r.ID(), err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	var key string
	if r.cfg.APIKeyEnv != "" {
		key = os.Getenv(r.cfg.APIKeyEnv)
		if key == "" {
			return 0, nil, fmt.Errorf("%w: $%s (needed by %s)", ErrMissingKey, r.cfg.APIKeyEnv, r.ID())
		}
		hreq.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := r.client.Do(hreq)
	if err != nil {
		// The transport error names the URL, which holds no secret; the key is in a header only.
		return 0, nil, fmt.Errorf("embed via %s: %w", r.ID(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return resp.StatusCode, body, fmt.Errorf("%w: POST %s: %s: %s", ErrRemoteStatus, endpoint, resp.Status, excerpt(body, key))
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes))
	if err := dec.Decode(v); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("%w: POST %s: %w", ErrRemoteResponse, endpoint, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // let the connection be reused
	return resp.StatusCode, nil, nil
}

// excerpt shortens a response body to one line of at most 200 bytes for an error message, with
// the API key masked in case the server echoed it. A JSON error body in the Ollama
// ({"error": "..."}) or OpenAI ({"error": {"message": "..."}}) shape is reduced to its message.
func excerpt(body []byte, key string) string {
	s := string(body)
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var msg string
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &msg) == nil && msg != "" {
			s = msg
		} else if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			s = obj.Message
		}
	}
	if key != "" {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}
