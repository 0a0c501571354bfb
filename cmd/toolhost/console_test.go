package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/browser"
	"toolhost/internal/nettest"
)

// These tests drive the operator console of the real binary in real headless Chromium.

// screenshotsEnv names the directory screenshots of the console's pages are written to (the
// README's docs/console); unset, none are taken.
const screenshotsEnv = "TOOLHOST_CONSOLE_SCREENSHOTS"

// newChromium starts a headless Chromium for one test or benchmark and returns its tab's
// context.
func newChromium(t testing.TB) context.Context {
	t.Helper()
	bin, err := browser.FindChromium("")
	if err != nil {
		why := "Chromium is not installed (apt-get install chromium): " + err.Error()
		if tt, ok := t.(*testing.T); ok {
			nettest.Missing(tt, why)
		}
		t.Fatal(why) // a benchmark asked for by name
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Env("GOOGLE_API_KEY=no", "GOOGLE_DEFAULT_CLIENT_ID=no", "GOOGLE_DEFAULT_CLIENT_SECRET=no"),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, tabCancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { tabCancel(); allocCancel() })
	// The first action starts the browser and must run on the tab's own context.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return tab
}

// within bounds one step of a test on the browser's tab.
func within(t *testing.T, tab context.Context, d time.Duration, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, d)
	defer cancel()
	err := chromedp.Do(ctx, steps...)
	// A navigation the page started itself (a form's redirect landing, a reload) destroys the
	// context a poll evaluates in; the steps are tried again in the new page until the deadline.
	for err != nil && ctx.Err() == nil && contextLost(err) {
		time.Sleep(100 * time.Millisecond)
		err = chromedp.Do(ctx, steps...)
	}
	if err != nil {
		dump, cancel := context.WithTimeout(tab, 5*time.Second)
		defer cancel()
		loc, _ := chromedp.Run(dump, chromedp.Location())
		text, _ := chromedp.Run(dump, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		t.Fatalf("%s: %v\npage %s:\n%s", what, err, loc, text)
	}
}

// contextLost reports the error of an evaluation whose page went away under it.
func contextLost(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") || strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

// clickLive clicks the element selector names inside a live part of a page, which the
// console re-renders as events arrive (the activity page every second): finding the element
// and clicking it happen in one evaluation, so a re-render between them cannot make the click
// miss, as it could between chromedp.Click's query and its mouse events.
func clickLive(selector string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el) return false; el.click(); return true })()`, selector))
}

// navigate loads url in tab. A navigation the page started itself (a form's post and redirect
// still finishing) aborts ours with ERR_ABORTED; that one is tried again.
func navigate(t *testing.T, tab context.Context, url string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(tab, 20*time.Second)
		err := chromedp.Do(ctx, chromedp.Navigate(url))
		cancel()
		if err == nil {
			return
		}
		if attempt == 4 || !strings.Contains(err.Error(), "ERR_ABORTED") {
			t.Fatalf("navigate to %s: %v", url, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// screenshot writes the page to $TOOLHOST_CONSOLE_SCREENSHOTS/name.png when set.
func screenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(tab, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// httpClient connects an MCP client to sv over HTTP; version "" is the newest protocol.
func httpClient(t *testing.T, sv served, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: sv.url, HTTPClient: &http.Client{Transport: bearer{sv.token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text and structured content.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, map[string]any) {
	t.Helper()
	res := callWithin(t, cs, time.Minute, tool, args)
	var st map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &st)
	if res.IsError {
		return "ERROR " + textOf(res, ""), st
	}
	return textOf(res, ""), st
}

// signIn opens the sign-in link in the browser and lands on the approvals page.
func signIn(t *testing.T, tab context.Context, sv served) {
	t.Helper()
	if sv.signIn == "" {
		t.Fatal("serve printed no console sign-in link")
	}
	within(t, tab, 30*time.Second, "sign in", chromedp.Navigate(sv.signIn), chromedp.WaitVisible(chromedp.CSS("section.pending")))
	loc, err := chromedp.Run(tab, chromedp.Location())
	if err != nil || strings.Contains(loc, "token=") {
		t.Errorf("after sign-in the address is %q (%v); want the token gone", loc, err)
	}
}

// consoleSession starts Chromium and `toolhost serve`, connects an MCP client (protocol
// version, "" for the newest) and signs the browser in.
func consoleSession(t *testing.T, version string, opts *mcp.ClientOptions) (context.Context, served, *mcp.ClientSession) {
	t.Helper()
	if testing.Short() {
		t.Skip("spawns the binary and Chromium")
	}
	tab := newChromium(t)
	sv := startServeFull(t, "")
	cs := httpClient(t, sv, version, opts)
	signIn(t, tab, sv)
	return tab, sv, cs
}

// TestConsoleApprovalLive: a model's request appears on the open page without a reload, with
// an in-page notification; approving it once from the page lets the MCP client proceed.
func TestConsoleApprovalLive(t *testing.T) {
	tab, sv, cs := consoleSession(t, "", nil)
	outside := filepath.Join(t.TempDir(), "report.txt")

	start := time.Now()
	text, id := requestWrite(t, cs, outside, "write the weekly report")
	within(t, tab, 10*time.Second, "request appears live", chromedp.WaitVisible(chromedp.CSS("#req-"+id)))
	t.Logf("figure: approval request reached the open page %v after the call returned", time.Since(start).Round(time.Millisecond))
	// The model was told where the user answers: this console, at the request.
	if link := strings.TrimSuffix(sv.url, "mcp") + "#req-" + id; !strings.Contains(text, "toolhost console:\n  "+link+"\n") {
		t.Errorf("the pending text does not send the user to %s:\n%s", link, text)
	}
	within(t, tab, 5*time.Second, "in-page notification", chromedp.WaitVisible(chromedp.CSS("#toast")))
	toast, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#toast")))
	if !strings.Contains(toast, "New approval request") || !strings.Contains(toast, "report.txt") {
		t.Errorf("notification = %q", toast)
	}
	page, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS("#req-"+id)))
	for _, want := range []string{"write the weekly report", "file_operations:write", "request_authorization", outside} {
		if !strings.Contains(page, want) {
			t.Errorf("the request on the page lacks %q:\n%s", want, page)
		}
	}
	screenshot(t, tab, "approvals")

	// Until the user answers, the model's write is refused.
	if text, _ := call(t, cs, "file_operations", map[string]any{"operation": "create_file", "path": outside, "content": "x"}); !strings.HasPrefix(text, "ERROR") {
		t.Fatalf("write before approval: %s", text)
	}
	within(t, tab, 20*time.Second, "approve once",
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`(() => {
			const sel = document.querySelector(%q), b = document.querySelector(%q);
			if (!sel || !b) return false;
			sel.value = "once"; b.click(); return true })()`, "#req-"+id+" select", "#req-"+id+" button.approve")),
		chromedp.WaitNotPresent(chromedp.CSS("#req-"+id)),
		chromedp.WaitVisible(chromedp.CSS("section.grants tbody tr")))
	text, _ = call(t, cs, "user_collaboration", map[string]any{"operation": "check_request", "request_id": id})
	if !strings.HasPrefix(text, "Granted ") {
		t.Fatalf("check_request after approval: %s", text)
	}
	if text, _ := call(t, cs, "file_operations", map[string]any{"operation": "create_file", "path": outside, "content": "weekly\n"}); strings.HasPrefix(text, "ERROR") {
		t.Fatalf("write after approval: %s", text)
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "weekly\n" {
		t.Errorf("file = %q, %v", b, err)
	}
	// Once means once.
	if text, _ := call(t, cs, "file_operations", map[string]any{"operation": "create_file", "path": outside + ".2", "content": "x"}); !strings.HasPrefix(text, "ERROR") {
		t.Errorf("second write on a one-time grant: %s", text)
	}
}

// TestConsoleToolSwitch: switching an operation off in the page removes it from a connected
// client's next tools/list (after notifications/tools/list_changed), keeps the order, and
// survives in the managed file; switching it on brings it back in its place.
func TestConsoleToolSwitch(t *testing.T) {
	changed := make(chan struct{}, 16)
	tab, sv, cs := consoleSession(t, "2025-06-18", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	if got := strings.Join(toolNames(t, cs), ","); got != wantTools {
		t.Fatalf("tools before = %s", got)
	}
	within(t, tab, 20*time.Second, "tools page", chromedp.Navigate(strings.TrimSuffix(sv.url, "/mcp")+"/tools"),
		chromedp.WaitVisible(chromedp.CSS(`button[aria-label="switch think.think off"]`)))
	screenshot(t, tab, "tools")
	switchOp := func(label string) {
		t.Helper()
		// A notification of an earlier switch may still be queued, and the page still shows
		// the earlier switch's confirmation: wait for this switch's own.
		for len(changed) > 0 {
			<-changed
		}
		op := strings.Fields(label)[1]
		within(t, tab, 20*time.Second, label, chromedp.Click(chromedp.CSS(`button[aria-label="`+label+`"]`)),
			chromedp.WaitVisible(`//p[@class="ok" and contains(., "Saved: `+op+`")]`))
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no notifications/tools/list_changed reached the client", label)
		}
	}
	switchOp("switch think.think off")
	if got, want := strings.Join(toolNames(t, cs), ","), strings.TrimPrefix(wantTools, "think,"); got != want {
		t.Errorf("tools after switching think off = %s, want %s", got, want)
	}
	res, _ := call(t, cs, "think", map[string]any{"thoughts": "x"})
	if !strings.HasPrefix(res, "ERROR") {
		t.Errorf("a call of the switched-off tool: %s", res)
	}
	b, err := os.ReadFile(filepath.Join(sv.state, "console.toml"))
	if err != nil || !strings.Contains(string(b), `"think.think"`) {
		t.Errorf("managed file: %q, %v", b, err)
	}
	switchOp("switch file_operations.delete_file off")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "file_operations" {
			raw, _ := json.Marshal(tl.InputSchema)
			if strings.Contains(string(raw), `"delete_file"`) || !strings.Contains(string(raw), `"read_file"`) {
				t.Errorf("file_operations schema after switching delete_file off: %s", raw)
			}
		}
	}
	switchOp("switch think.think on")
	if got, want := strings.Join(toolNames(t, cs), ","), wantTools; got != want {
		t.Errorf("tools after switching think back on = %s, want %s (the fixed order)", got, want)
	}
}

// TestConsoleTerminalLive: a terminal's screen on the page follows the session without a
// reload, and the page can close the session.
func TestConsoleTerminalLive(t *testing.T) {
	tab, sv, cs := consoleSession(t, "", nil)
	if text, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "dev"}); strings.HasPrefix(text, "ERROR") {
		t.Fatal(text)
	}
	call(t, cs, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "dev", "text": "echo first-$((40+2))", "wait_for": "first-42"})
	within(t, tab, 20*time.Second, "terminals page", chromedp.Navigate(strings.TrimSuffix(sv.url, "/mcp")+"/terminals"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#term-dev pre") && document.querySelector("#term-dev pre").textContent.includes("first-42")`))
	call(t, cs, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "dev", "text": "echo second-$((50+8))", "wait_for": "second-58"})
	within(t, tab, 10*time.Second, "screen updates live",
		chromedp.Poll[chromedp.Void](`document.querySelector("#term-dev pre").textContent.includes("second-58")`))
	screenshot(t, tab, "terminals")
	href, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('#term-dev a[href^="/terminals/history"]').href`))
	if err != nil {
		t.Fatal(err)
	}
	within(t, tab, 20*time.Second, "history", chromedp.Navigate(href),
		chromedp.Poll[chromedp.Void](`document.querySelector("main pre") && document.querySelector("main pre").textContent.includes("second-58")`))
	within(t, tab, 20*time.Second, "back to the terminals", chromedp.Navigate(strings.TrimSuffix(sv.url, "/mcp")+"/terminals"),
		chromedp.WaitVisible(chromedp.CSS("#term-dev button.deny")))
	within(t, tab, 20*time.Second, "close", chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		clickLive("#term-dev button.deny"), chromedp.WaitNotPresent(chromedp.CSS("#term-dev button.deny")))
	text, _ := call(t, cs, "terminal_operations", map[string]any{"operation": "list_sessions"})
	if strings.Contains(text, "running") || !strings.Contains(text, "closed") && !strings.Contains(text, "ended") {
		t.Errorf("list_sessions after closing from the console:\n%s", text)
	}
}

// TestConsolePages: the other pages render in the browser with what the model stored (and
// are captured for the README when screenshots are asked for).
func TestConsolePages(t *testing.T) {
	tab, sv, cs := consoleSession(t, "", nil)
	call(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{
		{"id": 1, "title": "Read the failing test", "status": "completed"},
		{"id": 2, "title": "Fix the parser", "status": "in-progress", "description": "quoted fields with commas"},
		{"id": 3, "title": "Run the suite", "status": "not-started"},
	}})
	call(t, cs, "memory_operations", map[string]any{"operation": "store_memory", "content": "The CSV parser lives in internal/csv and treats quotes per RFC 4180."})
	call(t, cs, "think", map[string]any{"thoughts": "plan the fix"})
	base := strings.TrimSuffix(sv.url, "/mcp")
	pages := []struct{ name, path, want string }{
		{"approvals", "/", "Pending requests"},
		{"tools", "/tools", "file_operations"},
		{"terminals", "/terminals", "Terminals"},
		{"plans", "/plans", "Fix the parser"},
		{"memory", "/memory", "CSV parser"},
		{"activity", "/activity", "Audit trail"},
		{"health", "/health", "toolhost"},
	}
	for _, p := range pages {
		within(t, tab, 20*time.Second, p.name, chromedp.Navigate(base+p.path),
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("main").textContent.includes(%q)`, p.want)))
		if !slices.Contains([]string{"approvals", "tools", "terminals", "activity", "memory"}, p.name) {
			screenshot(t, tab, p.name) // the others are taken with live content by their tests
		}
		// The page's own weight: the document and every file it loaded, uncompressed.
		weight, err := chromedp.Run(tab, chromedp.Evaluate[int](`performance.getEntriesByType("navigation")[0].decodedBodySize +
			performance.getEntriesByType("resource").reduce((n, e) => n + e.decodedBodySize, 0)`))
		if err != nil {
			t.Fatal(err)
		}
		load, err := chromedp.Run(tab, chromedp.Evaluate[float64](`performance.getEntriesByType("navigation")[0].duration`))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("figure: %s page weight %d bytes uncompressed, loaded in %.0f ms", p.name, weight, load)
		if weight > 100<<10 {
			t.Errorf("%s page weighs %d bytes, over the 100 KB budget", p.name, weight)
		}
	}
	// No request left the machine or went anywhere but the console: the CSP allows only 'self'.
	entries, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(e => e.name)`))
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(entries, func(u string) bool { return !strings.HasPrefix(u, base+"/") }); i >= 0 {
		t.Errorf("the page fetched %s", entries[i])
	}
}

// TestConsoleRefusesTerminals: a process in a toolhost terminal that read the sign-in link
// cannot spend it (the peer is the server's descendant), and the user's browser still can.
func TestConsoleRefusesTerminals(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	sv := startServeFull(t, "", "--sandbox", "off")
	cs := httpClient(t, sv, "", nil)
	host := strings.TrimPrefix(strings.TrimSuffix(sv.url, "/mcp"), "http://")
	hostName, port, _ := strings.Cut(host, ":")
	path := strings.TrimPrefix(sv.signIn, "http://"+host)
	script := fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s; printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' >&3; cat <&3`, hostName, port, path, host)
	text := runText(t, cs, "bash -c "+shellQuote(script))
	if !strings.Contains(text, "403") || !strings.Contains(text, "runs under a toolhost server") {
		t.Errorf("sign-in from a terminal: want 403 and the ancestry refusal, got:\n%s", text)
	}
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Get(sv.signIn)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Errorf("the user's sign-in after the refused attempt: %d %v; want 303 and a session", resp.StatusCode, resp.Cookies())
	}
}

// TestConsoleCancelRunning: a running command appears on the activity page with its elapsed
// time; Cancel there ends its process tree, the model's call says cancelled, and the history
// shows it.
func TestConsoleCancelRunning(t *testing.T) {
	tab, sv, cs := consoleSession(t, "", nil)
	base := strings.TrimSuffix(sv.url, "/mcp")
	// Some finished work first, for the history and the charts.
	for i := range 3 {
		call(t, cs, "think", map[string]any{"thoughts": fmt.Sprintf("step %d", i)})
	}
	call(t, cs, "file_operations", map[string]any{"operation": "list_dir", "path": "."})
	call(t, cs, "file_operations", map[string]any{"operation": "read_file", "path": "missing.txt"})
	marker := fmt.Sprintf("sleep 4%d", time.Now().UnixNano()%1000+100)
	done := make(chan string, 1)
	go func() {
		done <- tryCall(cs, "terminal_operations", map[string]any{"operation": "run_command",
			"command": "sh -c '" + marker + "' & " + marker + "; echo never", "yield_seconds": 60, "timeout_seconds": 120})
	}()
	waitProcs(t, marker, 2)
	within(t, tab, 20*time.Second, "running on the page", chromedp.Navigate(base+"/activity"),
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`[...document.querySelectorAll("#live tr")].some(r => r.textContent.includes(%q))`, marker)))
	screenshot(t, tab, "activity")
	// The form posts and the page reloads; the model's call ending is what says it was done.
	within(t, tab, 20*time.Second, "cancel", clickLive(`#live tr[id^="exec-"] button.deny`))
	select {
	case got := <-done:
		if !strings.Contains(got, "cancelled") || strings.Contains(got, "never") {
			t.Errorf("the cancelled call's result = %q, want it to say cancelled", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the model's call did not end after the cancel")
	}
	if n := countProcs(marker); n != 0 {
		t.Errorf("%d processes of the cancelled command left", n)
	}
	navigate(t, tab, base+"/activity")
	within(t, tab, 20*time.Second, "no longer running",
		chromedp.Poll[chromedp.Void](`document.querySelector("#live") && !document.querySelector('#live tr[id^="exec-"]')`))
	navigate(t, tab, base+"/activity?status=cancelled")
	within(t, tab, 20*time.Second, "history",
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("main").textContent.includes(%q)`, marker)))
	text, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS("main")))
	if !strings.Contains(text, "cancelled") || !strings.Contains(text, "terminal_operations") {
		t.Errorf("history after the cancel:\n%s", text)
	}
}

// TestConsoleTokenTier: the operator raises a client token's tier and sets its rate on the
// Tools page; the token's connected client gets the tool-list notification, and its very next
// call runs at the new tier and rate, with no restart. The change is audited as the console's.
func TestConsoleTokenTier(t *testing.T) {
	tab, sv, _ := consoleSession(t, "", nil)
	secret := createToken(t, sv.state, sv.work, "ci-bot", "--tier", "view_only")
	changed := make(chan struct{}, 16)
	cs := httpClient(t, served{url: sv.url, token: secret}, "2025-06-18", &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	write := func(title string) string {
		text, _ := call(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"id": 1, "title": title, "status": "not-started"}}})
		return text
	}
	if text := write("before"); !strings.Contains(text, "forbidden") {
		t.Fatalf("a view_only token wrote todos: %s", text)
	}
	base := strings.TrimSuffix(sv.url, "/mcp")
	within(t, tab, 20*time.Second, "tools page", chromedp.Navigate(base+"/tools#tokens"),
		chromedp.WaitVisible(chromedp.CSS(`#token-ci-bot select`)))
	within(t, tab, 20*time.Second, "change the tier",
		chromedp.SetValue(chromedp.CSS(`#token-ci-bot select`), "execute_basic"),
		chromedp.SetValue(chromedp.CSS(`#token-ci-bot input[name="rate"]`), "2/min"),
		chromedp.Click(chromedp.CSS(`#token-ci-bot button`)),
		chromedp.WaitVisible(chromedp.CSS("p.ok")),
		chromedp.ScrollIntoView(chromedp.CSS("#tokens")))
	screenshot(t, tab, "tokens")
	if v, err := chromedp.Run(tab, chromedp.Value(chromedp.CSS(`#token-ci-bot select`))); err != nil || v != "execute_basic" {
		t.Errorf("the page shows tier %q after the change (%v)", v, err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Error("the token's client got no notifications/tools/list_changed")
	}
	for i, want := range []string{"", "", "rate_limited"} {
		text := write(fmt.Sprintf("after %d", i))
		if bad := strings.HasPrefix(text, "ERROR"); want == "" && bad || want != "" && !strings.Contains(text, want) {
			t.Errorf("call %d after the change: %s (want %q)", i+1, text, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(sv.state, "audit.jsonl"))
	if err != nil || !regexp.MustCompile(`"event":"token_updated".*"by":"console[^"]*".*"token":"ci-bot","tier":"execute_basic","rate":"2/min"`).Match(b) {
		t.Errorf("no token_updated audit record by the console (%v):\n%s", err, b)
	}
}

// TestConsoleApprovalFromAnotherProcess: a request made by another toolhost process on the
// same state directory (an editor's stdio server) reaches the open page too: no commit of the
// serve process wakes the page, the store's Version does.
func TestConsoleApprovalFromAnotherProcess(t *testing.T) {
	tab, sv, _ := consoleSession(t, "", nil)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: commandIn(t, sv.state, sv.work, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	start := time.Now()
	text, id := requestWrite(t, cs, filepath.Join(t.TempDir(), "notes.txt"), "from the editor")
	within(t, tab, 10*time.Second, "request of another process appears live", chromedp.WaitVisible(chromedp.CSS("#req-"+id)))
	t.Logf("figure: another process's approval request reached the open page %v after the call returned", time.Since(start).Round(time.Millisecond))
	// The stdio server's model was sent to the console that serve announced.
	if link := strings.TrimSuffix(sv.url, "mcp") + "#req-" + id; !strings.Contains(text, "toolhost console:\n  "+link+"\n") {
		t.Errorf("the stdio server's pending text does not send the user to %s:\n%s", link, text)
	}
}

// requestWrite has the model ask for write access to path and returns the answer and the
// request's id.
func requestWrite(t *testing.T, cs *mcp.ClientSession, path, reason string) (text, id string) {
	t.Helper()
	text, _ = call(t, cs, "user_collaboration", map[string]any{"operation": "request_authorization",
		"path": path, "access": "file_operations:write", "reason": reason})
	id = regexp.MustCompile(`\br-[0-9a-z]+\b`).FindString(text)
	if id == "" {
		t.Fatalf("no request id: %s", text)
	}
	return text, id
}

// consoleForm is the console of sv signed in over plain HTTP, as a browser without
// JavaScript uses it: a cookie jar, the page's CSRF token and the console's Origin.
type consoleForm struct {
	t    *testing.T
	base string
	cl   *http.Client
	csrf string
}

func signInForm(t *testing.T, sv served) *consoleForm {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	f := &consoleForm{t: t, base: strings.TrimSuffix(sv.url, "/mcp"),
		cl: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	resp, err := f.cl.Get(sv.signIn)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in link: %d, want 303", resp.StatusCode)
	}
	_, page := f.get("/tools")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the tools page:\n%s", page)
	}
	f.csrf = m[1]
	return f
}

func (f *consoleForm) get(path string) (int, string) {
	f.t.Helper()
	resp, err := f.cl.Get(f.base + path)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post submits a form of the console's pages, with the session's CSRF token.
func (f *consoleForm) post(path string, form url.Values) (int, string) {
	f.t.Helper()
	form.Set("csrf", f.csrf)
	req, _ := http.NewRequest("POST", f.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", f.base)
	resp, err := f.cl.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestConsoleSwitchReachesStdio: every editor window runs a `toolhost stdio` of its own on
// the configuration. A switch made on the serve process's console reaches such a process
// without a restart: its client's next tools/list drops the tool, in the fixed order, and the
// client was sent notifications/tools/list_changed; switching it back on brings it back in
// its place.
func TestConsoleSwitchReachesStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	sv := startServeFull(t, "")
	changed := make(chan struct{}, 16)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "editor", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(context.Background(), &mcp.CommandTransport{Command: commandIn(t, sv.state, sv.work, "stdio")},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := strings.Join(toolNames(t, cs), ","); got != wantTools {
		t.Fatalf("stdio tools before = %s", got)
	}
	console := signInForm(t, sv)
	flip := func(sw, wantTools string) {
		t.Helper()
		if code, body := console.post("/tools", url.Values{"tool": {"think"}, "switch": {sw}}); code != http.StatusSeeOther {
			t.Fatalf("switch %s on the console: %d\n%s", sw, code, body)
		}
		if got := strings.Join(toolNames(t, cs), ","); got != wantTools {
			t.Errorf("stdio tools/list after switch %s = %s, want %s", sw, got, wantTools)
		}
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("switch %s: the stdio client got no notifications/tools/list_changed", sw)
		}
	}
	flip("think=0", strings.TrimPrefix(wantTools, "think,"))
	if text, _ := call(t, cs, "think", map[string]any{"thoughts": "x"}); !strings.HasPrefix(text, "ERROR") {
		t.Errorf("the stdio process ran the switched-off tool: %s", text)
	}
	flip("think=1", wantTools)
}

// TestConsoleApproveWithoutJavaScript: approving is a plain form. With the page's scripts
// switched off (the page shows its no-script note and opens no live stream), a request that
// was pending when the page loaded is approved from it, and the model's check_request sees the
// grant.
func TestConsoleApproveWithoutJavaScript(t *testing.T) {
	tab, sv, cs := consoleSession(t, "", nil)
	within(t, tab, 10*time.Second, "switch scripts off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	_, id := requestWrite(t, cs, filepath.Join(t.TempDir(), "notes.txt"), "no script needed")
	navigate(t, tab, strings.TrimSuffix(sv.url, "/mcp")+"/")
	within(t, tab, 20*time.Second, "the request on a page without scripts",
		chromedp.WaitVisible(chromedp.CSS("#req-"+id)), chromedp.WaitVisible(chromedp.CSS("#noscript")))
	within(t, tab, 20*time.Second, "approve",
		chromedp.Click(chromedp.CSS("#req-"+id+" button.approve")),
		chromedp.WaitNotPresent(chromedp.CSS("#req-"+id)),
		chromedp.WaitVisible(chromedp.CSS("section.grants tbody tr")),
		chromedp.WaitVisible(chromedp.CSS("#noscript")))
	if text, _ := call(t, cs, "user_collaboration", map[string]any{"operation": "check_request", "request_id": id}); !strings.HasPrefix(text, "Granted ") {
		t.Fatalf("check_request after approving without JavaScript: %s", text)
	}
}

// TestConsoleMemoryImport: a document chosen on the memory page is imported in the
// background, and the page's progress bar follows it live until it says done; the document
// is then listed with its chunks.
func TestConsoleMemoryImport(t *testing.T) {
	tab, sv, cs := consoleSession(t, "", nil)
	call(t, cs, "memory_operations", map[string]any{"operation": "store_memory", "content": "Field notes are imported from the console's memory page."})
	var doc strings.Builder
	doc.WriteString("# Field guide\n\n")
	for i := range 120 {
		fmt.Fprintf(&doc, "## Site %d\n\nTransect %d crosses the meadow at bearing %d degrees; %d quadrats, soil pH %d.%d, "+
			"dominant grass species recorded on day %d of the survey.\n\n", i, i, (i*37)%360, 4+i%5, 5+i%3, i%10, 1+i%30)
	}
	path := filepath.Join(t.TempDir(), "field-guide.md")
	if err := os.WriteFile(path, []byte(doc.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(sv.url, "/mcp")
	within(t, tab, 20*time.Second, "memory page", chromedp.Navigate(base+"/memory"),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/memory/import"] input[type="file"]`)))
	within(t, tab, 20*time.Second, "choose and import the document",
		chromedp.SetUploadFiles(chromedp.CSS(`form[action="/memory/import"] input[type="file"]`), []string{path}),
		chromedp.Click(chromedp.CSS(`form[action="/memory/import"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`#imports .import progress`)))
	// The bar is the live part of the page: done arrives through its event stream.
	within(t, tab, 60*time.Second, "progress reaches done", chromedp.Poll[chromedp.Void](`(() => {
		const row = document.querySelector("#imports .import");
		return document.querySelector("#imports").hasAttribute("data-updated") && row &&
			row.textContent.includes("field-guide.md") && row.querySelector(".ok") &&
			row.querySelector(".ok").textContent === "done" && row.querySelector("progress").value === 100;
	})()`))
	screenshot(t, tab, "memory")
	navigate(t, tab, base+"/memory")
	within(t, tab, 20*time.Second, "the imported document is listed",
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("main table tr")].some(r => r.textContent.includes("field-guide.md"))`))
	// Name, scope, chunks, size, imported.
	cells, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...[...document.querySelectorAll("main table tr")].find(r => r.cells[0] && r.cells[0].textContent === "field-guide.md").cells].map(c => c.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) < 3 || cells[2] == "0" || cells[2] == "" {
		t.Errorf("imported document row = %q, want its chunks", cells)
	}
	t.Logf("imported document row: %q", cells)
}
