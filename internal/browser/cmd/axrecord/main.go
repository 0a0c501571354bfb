// Command axrecord records the accessibility tree a Chromium reports for each page in
// internal/browser/testdata/axtree (NAME.html), as NAME.chromium-MAJOR.json beside it. The
// snapshot tests render every recording of a page and require one text from all of them, so a
// browser update that reshapes the tree shows up as a new recording, not as a broken golden:
//
//	go run ./internal/browser/cmd/axrecord [-chromium PATH] [-dir DIR]
//
// Record with each Chromium whose trees the snapshot must agree on (the OS package today, and
// an older or newer build run from its own directory).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

func main() {
	chromium := flag.String("chromium", "chromium", "the browser `binary` to record with")
	dir := flag.String("dir", "internal/browser/testdata/axtree", "the `directory` of the pages and recordings")
	flag.Parse()
	if err := record(*chromium, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "axrecord:", err)
		os.Exit(1)
	}
}

func record(chromium, dir string) error {
	bin, err := exec.LookPath(chromium)
	if err != nil {
		return err
	}
	pages, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil || len(pages) == 0 {
		return fmt.Errorf("no pages (*.html) in %s", dir)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir))}
	go srv.Serve(ln)
	defer srv.Close()

	profile, err := os.MkdirTemp("", "axrecord-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(profile)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.UserDataDir(profile),
		chromedp.NoSandbox, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-quic", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	var product string
	err = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		v, err := cdp.Call(ctx, t, browser.GetVersion, cdp.Empty{})
		product = v.Product
		return err
	}))
	if err != nil {
		return err
	}
	major := regexp.MustCompile(`/(\d+)\.`).FindStringSubmatch(product)
	if major == nil {
		return fmt.Errorf("browser version %q has no major number", product)
	}
	for _, page := range pages {
		name := strings.TrimSuffix(filepath.Base(page), ".html")
		var nodes []*accessibility.Node
		if err := chromedp.Do(ctx, chromedp.Navigate("http://"+ln.Addr().String()+"/"+name+".html")); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			res, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
			nodes = res.Nodes
			return err
		}))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b, err := json.MarshalIndent(recording{Browser: product, Nodes: nodes}, "", " ")
		if err != nil {
			return err
		}
		out := filepath.Join(dir, name+".chromium-"+major[1]+".json")
		if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", out)
	}
	return nil
}

// recording is the file format the snapshot tests read.
type recording struct {
	Browser string                `json:"browser"`
	Nodes   []*accessibility.Node `json:"nodes"`
}
