package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"toolhost/authz"
	"toolhost/internal/proctree"
)

// Session is one conversation's browser: a Chromium process with a fresh profile, its proxy and
// one tab. Calls on a session are serialised.
type Session struct {
	conv  string
	m     *Manager
	ready chan struct{} // closed when start returned
	// startErr is set before ready is closed.
	startErr error

	op sync.Mutex // one action at a time

	mu       sync.Mutex
	lastUsed time.Time
	closed   bool

	dataDir     string
	proxy       *proxy
	allocCancel context.CancelFunc
	tabCtx      context.Context
	tabCancel   context.CancelFunc
	proc        *os.Process
	exited      chan struct{}
}

func (s *Session) touch() {
	s.mu.Lock()
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

func (s *Session) idleFor() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastUsed.IsZero() {
		return 0
	}
	return time.Since(s.lastUsed)
}

func (s *Session) started() bool {
	select {
	case <-s.ready:
		return s.startErr == nil
	default:
		return false
	}
}

// alive reports whether the browser process still runs (a crashed browser is replaced).
func (s *Session) alive() bool {
	<-s.ready
	if s.startErr != nil || s.exited == nil {
		return false
	}
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// PID is the browser's process id (0 before start).
func (s *Session) PID() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid
}

// DataDir is the temporary profile directory.
func (s *Session) DataDir() string { return s.dataDir }

func (s *Session) start(ctx context.Context) error {
	cfg := s.m.cfg
	bin, err := FindChromium(cfg.Chromium)
	if err != nil {
		return err
	}
	s.proxy, err = startProxy(cfg.Web, cfg.Guard, authz.NetCaller{Conversation: s.conv, Tool: "web_operations", Operation: "browser_navigate"}, s.m.log)
	if err != nil {
		return err
	}
	s.dataDir, err = os.MkdirTemp("", "toolhost-browser-")
	if err != nil {
		s.proxy.close()
		return fmt.Errorf("browser profile: %w", err)
	}
	opts := chromiumOptions(bin, s.dataDir, s.proxy.URL(), cfg.Width, cfg.Height)
	if err := s.launch(ctx, opts); err != nil {
		s.teardown()
		return err
	}
	s.exited = make(chan struct{})
	if s.proc != nil {
		go s.watchExit(s.proc, s.exited)
	}
	s.touch()
	return nil
}

// chromiumOptions are the flags of a private, headless Chromium that reaches the network only
// through toolhost's guarded proxy and phones home nowhere.
func chromiumOptions(bin, dataDir, proxyURL string, width, height int) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(dataDir),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		// Features that phone home on their own (autofill, optimisation hints, translation...).
		chromedp.Flag("disable-features", "Translate,MediaRouter,DialMediaRouteProvider,OptimizationHints,OptimizationHintsFetching,"+
			"OptimizationGuideModelDownloading,AutofillServerCommunication,CertificateTransparencyComponentUpdater,"+
			"DnsOverHttps,InterestFeedContentSuggestions,PrivacySandboxSettings4,Prerender2"),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-component-extensions-with-background-pages", true),
		chromedp.Flag("no-service-autorun", true),
		chromedp.Flag("disable-search-engine-choice-screen", true),
		// Without API keys Chromium does not try to sign in or reach Google services.
		chromedp.Env("GOOGLE_API_KEY=no", "GOOGLE_DEFAULT_CLIENT_ID=no", "GOOGLE_DEFAULT_CLIENT_SECRET=no"),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("mute-audio", true),
		// Every request through toolhost's guarded proxy. "<-loopback>" removes Chromium's
		// implicit bypass of localhost and 127.0.0.1, so loopback is decided like the rest.
		chromedp.ProxyServer(proxyURL),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		// WebRTC may not send UDP around the proxy.
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		// Defence in depth: a connection that somehow skipped the proxy cannot resolve a name.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			// Its own process group, so closing kills the whole tree; and killed if toolhost
			// dies (where the kernel can).
			proctree.Isolate(cmd, true)
		}),
	}
	if os.Geteuid() == 0 {
		// Chromium's sandbox refuses to run as root.
		opts = append(opts, chromedp.NoSandbox)
	}
	return opts
}

// launch starts the browser process with its first tab and denies downloads; on an error the
// caller tears down what was started.
func (s *Session) launch(ctx context.Context, opts []chromedp.ExecAllocatorOption) error {
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	// chromedp logs with the log package by default; toolhost's log is slog on stderr or a file.
	logf := func(format string, args ...any) { s.m.log.Debug("chromedp: " + fmt.Sprintf(format, args...)) }
	tabCtx, tabCancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(logf), chromedp.WithLogf(logf))
	s.allocCancel, s.tabCtx, s.tabCancel = allocCancel, tabCtx, tabCancel
	// The first action starts the browser and must run on the tab's own context: chromedp
	// closes the browser when the context of that first action ends.
	errc := make(chan error, 1)
	go func() {
		errc <- chromedp.Do(tabCtx, chromedp.Func(func(context.Context, *chromedp.Target) error { return nil }))
	}()
	select {
	case err := <-errc:
		if err != nil {
			return fmt.Errorf("start chromium: %w", err)
		}
	case <-time.After(startTimeout):
		return fmt.Errorf("start chromium: no answer within %s", startTimeout)
	case <-ctx.Done():
		return ctx.Err()
	}
	if c := chromedp.FromContext(tabCtx); c != nil && c.Browser != nil {
		s.proc = c.Browser.Process()
	}
	// A page must not save files where the working-directory guard cannot see: the download
	// operation is the way to save a file.
	dctx, dcancel := context.WithTimeout(tabCtx, 10*time.Second)
	defer dcancel()
	if _, err := chromedp.CallBrowser(dctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{Behavior: cdpbrowser.SetDownloadBehaviorBehaviorDeny}); err != nil {
		return fmt.Errorf("start chromium: deny downloads: %w", err)
	}
	return nil
}

// watchExit closes done when the browser process p has gone or the session was closed.
// chromedp waits for the process, so this polls for its exit without reaping it.
func (s *Session) watchExit(p *os.Process, done chan struct{}) {
	for {
		if err := p.Signal(syscall.Signal(0)); err != nil {
			close(done)
			return
		}
		select {
		case <-time.After(500 * time.Millisecond):
		case <-s.m.done:
		}
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			close(done)
			return
		}
	}
}

// close ends the browser: the tab, then the process tree, the proxy and the profile.
func (s *Session) close() {
	<-s.ready
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.op.Lock()
	defer s.op.Unlock()
	s.teardown()
}

func (s *Session) teardown() {
	if s.tabCancel != nil {
		done := make(chan struct{})
		go func() {
			s.tabCancel()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	killTree(s.proc)
	if s.allocCancel != nil {
		s.allocCancel() // waits for the process and removes leftovers using the profile
	}
	if s.proxy != nil {
		s.proxy.close()
	}
	if s.dataDir != "" {
		// A child that was still exiting can write into the profile after the first removal.
		for i := 0; i < 50; i++ {
			if os.RemoveAll(s.dataDir) == nil {
				if _, err := os.Stat(s.dataDir); os.IsNotExist(err) {
					break
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// startTimeout bounds starting Chromium (a loaded machine takes a few seconds).
const startTimeout = 30 * time.Second

// errClosed: the session was closed while a call waited for it.
var errClosed = errors.New("the browser was closed")

// lock serialises actions and refuses a closed session.
func (s *Session) lock() error {
	s.op.Lock()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		s.op.Unlock()
		return errClosed
	}
	s.touch()
	return nil
}

func (s *Session) unlock() {
	s.touch()
	s.op.Unlock()
}
