package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"time"
)

// DownloadOptions are download's options.
type DownloadOptions struct {
	Headers   map[string]string
	Timeout   time.Duration
	MaxBytes  int64 // 0 = MaxDownloadBytes; never above it
	Overwrite bool
	// Progress is called every so often with the bytes received and the expected total (-1 if
	// unknown).
	Progress func(done, total int64)
}

// Download is a finished download.
type Download struct {
	URL         string
	Bytes       int64
	ContentType string
	SHA256      string
	Status      int
	Replaced    bool
}

// tempPrefix marks a download in progress, so a crashed writer's leftovers are recognisable.
const tempPrefix = ".toolhost-download-"

// DownloadTo GETs a URL into rel below root: streamed into a temporary file beside the target,
// synced, then renamed over it (Overwrite) or linked into place, which fails if the target
// appeared meanwhile. A body over the cap, an error status or a failure leaves nothing behind.
func (c *Client) DownloadTo(ctx context.Context, rawURL string, root *os.Root, rel string, o DownloadOptions) (*Download, error) {
	if fi, err := root.Lstat(rel); err == nil {
		if fi.IsDir() {
			return nil, &Error{Code: CodeExists, Message: rel + " is a directory", Next: "give a file path, e.g. " + path.Join(rel, "file")}
		}
		if !o.Overwrite {
			return nil, &Error{Code: CodeExists, Message: rel + " already exists", Next: `pass "overwrite":true to replace it, or choose another path`}
		}
	}
	limit := c.cfg.MaxDownloadBytes
	if o.MaxBytes > 0 && o.MaxBytes < limit {
		limit = o.MaxBytes
	}
	resp, cancel, err := c.open(ctx, Request{Method: "GET", URL: rawURL, Headers: o.Headers, Timeout: o.Timeout})
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer resp.raw.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, &Error{Code: CodeHTTPError, Message: fmt.Sprintf("%s answered %s; nothing was saved", Redact(resp.URL), resp.Status),
			Next: "check the URL; http_request shows the error body"}
	}
	if resp.Length > limit {
		return nil, &Error{Code: CodeTooLarge, Message: fmt.Sprintf("%s is %d bytes, over the %d-byte cap; nothing was saved", Redact(resp.URL), resp.Length, limit),
			Next: "raise max_bytes (up to the configured [web] max_download_bytes) if you need it"}
	}
	if dir := path.Dir(rel); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create directory for download: %w", err)
		}
	}
	tmp := path.Join(path.Dir(rel), tempPrefix+randomSuffix())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create temporary file: %w", err)
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			root.Remove(tmp)
		}
	}()
	sum := sha256.New()
	n, err := copyWithProgress(io.MultiWriter(f, sum), resp.raw.Body, limit, resp.Length, o.Progress)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, &Error{Code: CodeTooLarge, Message: fmt.Sprintf("%s sent more than the %d-byte cap; nothing was saved", Redact(resp.URL), limit),
				Next: "raise max_bytes (up to the configured [web] max_download_bytes) if you need it"}
		}
		return nil, Classify(err, resp.URL.Host)
	}
	if err := f.Sync(); err != nil {
		return nil, fmt.Errorf("sync download: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("close download: %w", err)
	}
	d := &Download{URL: Redact(resp.URL), Bytes: n, ContentType: resp.ContentType, SHA256: hexSum(sum), Status: resp.StatusCode}
	if o.Overwrite {
		_, statErr := root.Lstat(rel)
		d.Replaced = statErr == nil
		if err := root.Rename(tmp, rel); err != nil {
			return nil, fmt.Errorf("move download into place: %w", err)
		}
	} else {
		// A link fails if the target exists: no window in which a file created meanwhile is
		// silently replaced.
		if err := root.Link(tmp, rel); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return nil, &Error{Code: CodeExists, Message: rel + " appeared while downloading; nothing was replaced", Next: `pass "overwrite":true to replace it`}
			}
			return nil, fmt.Errorf("move download into place: %w", err)
		}
		root.Remove(tmp)
	}
	done = true
	return d, nil
}

var errTooLarge = errors.New("body over the cap")

func copyWithProgress(w io.Writer, r io.Reader, limit, total int64, progress func(done, total int64)) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	last := time.Now()
	for {
		k, err := r.Read(buf)
		if k > 0 {
			if n+int64(k) > limit {
				return n, errTooLarge
			}
			if _, werr := w.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
			if progress != nil && time.Since(last) >= 250*time.Millisecond {
				progress(n, total)
				last = time.Now()
			}
		}
		if err == io.EOF {
			if progress != nil {
				progress(n, total)
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func randomSuffix() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }
