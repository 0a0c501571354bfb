package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/app"
	"toolhost/internal/config"
)

// detachKey ends `toolhost attach` (Ctrl-], as telnet and docker attach use); it is never sent
// to the session.
const detachKey = 0x1d

// attachPoll is how often attach looks at the session's screen.
const attachPoll = 100 * time.Millisecond

// attachCommand types into a session of the running `toolhost serve`, as the console's Type
// page does, from the user's own terminal.
var attachCommand = cliCommand{
	name: "attach", args: "CONVERSATION SESSION", minArgs: 2, maxArgs: 2, operator: true,
	help: "type into a terminal session of the running toolhost serve as yourself (raw mode; Ctrl-] detaches)",
	flags: func(fs *flag.FlagSet) action {
		base := fs.String("url", "", "the serve's console `URL` (default: the one a running serve announced in the state directory)")
		return func(inv *invocation) error { return attach(inv, *base) }
	},
}

// attachClient speaks to serve's operator API of terminals (/api/terminals/) with the
// operator token.
type attachClient struct {
	base, token, conv, id string
	http                  *http.Client
}

func (c *attachClient) url(op string) string {
	return c.base + "/api/terminals/" + op + "?" + url.Values{"conversation": {c.conv}, "id": {c.id}}.Encode()
}

func (c *attachClient) do(ctx context.Context, method, op string, body []byte) ([]byte, error) {
	u := c.url(op)
	if op == "input" {
		u += "&via=attach"
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("toolhost serve at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("toolhost serve at %s: %s", c.base, strings.TrimSpace(string(b)))
	}
	return b, nil
}

// attachScreen is the API's answer to GET screen.
type attachScreen struct {
	Screen string `json:"screen"`
	State  string `json:"state"`
}

func (c *attachClient) screen(ctx context.Context) (attachScreen, error) {
	var v attachScreen
	b, err := c.do(ctx, http.MethodGet, "screen", nil)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	return v, err
}

func attach(inv *invocation, base string) error {
	cfg, _, err := inv.setup()
	if err != nil {
		return err
	}
	state := cfg.StateDir
	if state == "" {
		state = config.DefaultStateDir()
	}
	if err := authz.CheckOperator(state); err != nil {
		return fmt.Errorf("refusing to attach: %w; run it in your own terminal", err)
	}
	if base == "" {
		if base = app.RunningConsole(state); base == "" {
			return fmt.Errorf("no running toolhost serve announces a console in %s: start toolhost serve with this state directory, or pass --url", state)
		}
	}
	token, err := authz.ReadOperatorToken(state)
	if err != nil {
		return fmt.Errorf("the operator token: %w", err)
	}
	c := &attachClient{base: strings.TrimSuffix(base, "/"), token: token, conv: inv.args[0], id: inv.args[1],
		http: &http.Client{Timeout: 30 * time.Second}}
	ctx := inv.ctx
	first, err := c.screen(ctx)
	if err != nil {
		return err
	}
	if first.State != "running" {
		return fmt.Errorf("session %s of conversation %s is %s", c.id, c.conv, first.State)
	}
	restore, err := rawTerminal(os.Stdin)
	if err != nil {
		return fmt.Errorf("toolhost attach needs a terminal: %w", err)
	}
	defer restore()
	out := inv.stdout
	fmt.Fprintf(out, "attached to session %s of conversation %s at %s: your keys go to it as yours (audited, named to the model); Ctrl-] detaches\r\n", c.id, c.conv, c.base)

	keys := make(chan []byte)
	detached := make(chan struct{})
	go readKeys(os.Stdin, keys, detached)
	failed := make(chan error, 1)
	go func() {
		for k := range keys {
			if _, err := c.do(ctx, http.MethodPost, "input", k); err != nil {
				failed <- err
				return
			}
		}
	}()
	tick := time.NewTicker(attachPoll)
	defer tick.Stop()
	shown := ""
	for {
		v, err := c.screen(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			fmt.Fprint(out, "\r\ndetached\r\n")
			return nil
		case err != nil:
			restore()
			return err
		case v.State != "running":
			fmt.Fprintf(out, "\r\nsession %s %s\r\n", c.id, v.State)
			return nil
		case v.Screen != shown:
			shown = v.Screen
			fmt.Fprint(out, "\x1b[H\x1b[2J"+strings.ReplaceAll(v.Screen, "\n", "\r\n"))
		}
		select {
		case <-tick.C:
		case <-detached:
			fmt.Fprint(out, "\r\ndetached\r\n")
			return nil
		case err := <-failed:
			restore()
			return err
		case <-ctx.Done():
			fmt.Fprint(out, "\r\ndetached\r\n")
			return nil
		}
	}
}

// readKeys sends what the terminal reads to keys, batch by batch, until the detach key (what
// precedes it in its batch is still sent) or the end of the input.
func readKeys(in io.Reader, keys chan<- []byte, detached chan<- struct{}) {
	defer close(detached)
	defer close(keys)
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		b := buf[:n]
		if i := bytes.IndexByte(b, detachKey); i >= 0 {
			if i > 0 {
				keys <- bytes.Clone(b[:i])
			}
			return
		}
		if n > 0 {
			keys <- bytes.Clone(b)
		}
		if err != nil {
			return // the end of the input, or a terminal that went away
		}
	}
}
