package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"toolhost/internal/terminal"
)

// TerminalHostArg is the first argument that makes the toolhost binary a terminal host
// (TerminalHostCommand); it is no command of the CLI, which people never type.
const TerminalHostArg = "__terminal-host"

// ServeTerminalHost runs the terminal host of state directory dir with the configuration a
// server wrote as JSON on stdin, logging to stderr, until it has nothing left to keep. Another
// host already serving dir is no error: the server that started this one connects to it.
func ServeTerminalHost(dir string, stdin io.Reader, stderr io.Writer) error {
	var cfg terminal.HostConfig
	if err := json.NewDecoder(stdin).Decode(&cfg); err != nil {
		return fmt.Errorf("terminal host: read the configuration: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// The host ends by itself; SIGTERM (a user's kill, a shutdown) ends its sessions as a
	// server's end would, with their records written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err := terminal.ServeHost(ctx, dir, cfg, logger)
	if errors.Is(err, terminal.ErrHostRunning) {
		return nil
	}
	return err
}
