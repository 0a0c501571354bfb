// Command toolhost serves toolhost's consolidated MCP tools over stdio or streamable HTTP, and
// offers a few commands for people: listing the tools, calling one, and answering approvals.
//
// The commands are a table: each group of commands lives in its own file (cmd_*.go) as a list of
// rows, and the usage text, the per-command help and the dispatch are all read from the rows.
// Adding a command is adding a row to its group; adding a group is a file and a line in groups.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"toolhost/internal/app"
	"toolhost/internal/config"
)

// groups lists the command groups in the order the usage text shows them. It is set in init
// because the help command reads it.
var groups []group

func init() {
	groups = []group{serveCommands, clientCommands, toolCommands, conversationCommands, approvalCommands, executionCommands, guardCommands, memoryCommands, indexCommands, stateCommands, configCommands, otherCommands}
}

// A group is a titled list of commands, one file each.
type group struct {
	title    string
	commands []cliCommand
}

// A command is one row of the table.
type cliCommand struct {
	// name is one or more words: "approve", "memory reembed".
	name string
	// args names the positional arguments in the usage text: "ID", "TOOL ['JSON']".
	args string
	// help is the one line the command list shows.
	help string
	// minArgs and maxArgs bound the positional arguments; maxArgs -1 means any number.
	minArgs, maxArgs int
	// operator marks commands that decide what a model may do (grants) or read every
	// principal's executions: they are refused inside a toolhost terminal, where a model types
	// the commands (and, through operatorApp, below a toolhost server however started).
	operator bool
	// flags declares the command's own flags on fs and returns its action, which reads their
	// parsed values; a command without flags sets run instead.
	flags func(fs *flag.FlagSet) action
	run   action
}

// An action runs a command once its flags and arguments are parsed.
type action func(inv *invocation) error

// invocation is what an action gets: the parsed arguments and flags, the output streams, and the
// app, opened on first use so that an action can check its arguments first.
type invocation struct {
	ctx            context.Context
	args           []string
	stdout, stderr io.Writer
	global         *globalFlags
	app            *app.App
	closeApp       func()
	// cfg and logger are the configuration and log the app opens with (setup).
	cfg      *config.Config
	logger   *slog.Logger
	closeLog func()
	// signalsHandled closes once SIGINT and SIGTERM cancel ctx (notifyContext).
	signalsHandled <-chan struct{}
}

// notifyContext is signal.NotifyContext with the handlers installed on another goroutine:
// the first signal.Notify starts the runtime's signal thread, most of a millisecond of a start
// that a client waits for. Until handled closes, SIGINT and SIGTERM end the process as they
// do before main, which is right while nothing is open; App waits for it.
func notifyContext(parent context.Context, sigs ...os.Signal) (ctx context.Context, stop func(), handled <-chan struct{}) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	installed := make(chan struct{})
	go func() {
		signal.Notify(ch, sigs...)
		close(installed)
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	stop = func() {
		cancel()
		<-installed
		signal.Stop(ch)
	}
	return ctx, stop, installed
}

// setup loads the configuration, adjusted by the command's own flags, and opens the log, once:
// App opens the app with them, and a stdio server declares its app (app.Declare) from them.
// The dispatcher closes the log after the action.
func (inv *invocation) setup(adjust ...func(*config.Config)) (*config.Config, *slog.Logger, error) {
	if inv.cfg != nil {
		return inv.cfg, inv.logger, nil
	}
	cfg, logger, closeLog, err := loadSetup(inv.global, inv.stderr, adjust...)
	if err != nil {
		return nil, nil, err
	}
	inv.cfg, inv.logger, inv.closeLog = cfg, logger, closeLog
	return cfg, logger, nil
}

// App opens the configured app (once), with the configuration adjusted by the command's own
// flags (the first call's, with setup's); the dispatcher closes it after the action.
func (inv *invocation) App(adjust ...func(*config.Config)) (*app.App, error) {
	if inv.app != nil {
		return inv.app, nil
	}
	cfg, logger, err := inv.setup(adjust...)
	if err != nil {
		return nil, err
	}
	<-inv.signalsHandled // from here on there is something to shut down
	a, err := app.Open(inv.ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	inv.app, inv.closeApp = a, func() { a.Close() }
	return a, nil
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == app.TerminalHostArg {
		if err := app.ServeTerminalHost(os.Args[2], os.Stdin, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "toolhost terminal host:", err)
			os.Exit(1)
		}
		return
	}
	app.TerminalHostCommand = terminalHostCommand
	raiseStartupGC()
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "toolhost:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	g := &globalFlags{}
	global := flag.NewFlagSet("toolhost", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() { printUsage(stderr) }
	g.define(global)
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	rest := global.Args()
	if len(rest) == 0 {
		printUsage(stderr)
		return errors.New("missing command")
	}
	cmd, rest, err := lookup(rest)
	if errors.Is(err, errUnknownCommand) {
		printUsage(stderr)
	}
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("toolhost "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { printCommandHelp(stderr, cmd) }
	g.define(fs) // global flags may follow the command too
	act := cmd.run
	if cmd.flags != nil {
		act = cmd.flags(fs)
	}
	if rest, err = parseInterspersed(fs, rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(rest) < cmd.minArgs || cmd.maxArgs >= 0 && len(rest) > cmd.maxArgs {
		return fmt.Errorf("usage: %s", usageLine(cmd))
	}
	if cmd.operator && os.Getenv("TOOLHOST_TERMINAL_ID") != "" {
		// A toolhost terminal runs commands a model typed; a grant must come from the user.
		return fmt.Errorf("refusing toolhost %s from inside a toolhost terminal session: it is an operator command; run it in your own terminal", cmd.name)
	}
	if fromUserShell() {
		// Clients that start toolhost with a stripped environment find the user's config and
		// state through this note; failing to write it only loses that convenience.
		_ = config.RememberXDGDirs()
	}
	ctx, stop, handled := notifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	inv := &invocation{ctx: ctx, args: rest, stdout: stdout, stderr: stderr, global: g, signalsHandled: handled}
	defer func() {
		if inv.closeApp != nil {
			inv.closeApp()
		}
		if inv.closeLog != nil {
			inv.closeLog()
		}
	}()
	return act(inv)
}

// errUnknownCommand: no command starts with the first word.
var errUnknownCommand = errors.New("unknown command")

// lookup finds the command named by the first words of args (the longest name wins) and returns
// the words after it.
func lookup(args []string) (cliCommand, []string, error) {
	var best cliCommand
	found := false
	var related []string
	for _, g := range groups {
		for _, c := range g.commands {
			words := strings.Fields(c.name)
			if words[0] == args[0] {
				related = append(related, c.name)
			}
			if len(words) <= len(args) && slices.Equal(words, args[:len(words)]) && len(words) > len(strings.Fields(best.name)) {
				best, found = c, true
			}
		}
	}
	if !found {
		if len(related) > 0 {
			return cliCommand{}, nil, fmt.Errorf("no command %q; commands: %s", strings.Join(args[:min(2, len(args))], " "), strings.Join(related, ", "))
		}
		return cliCommand{}, nil, fmt.Errorf("%w %q", errUnknownCommand, args[0])
	}
	return best, args[len(strings.Fields(best.name)):], nil
}

// parseInterspersed parses flags wherever they stand among the positional arguments, so that
// "toolhost call think '{}' --workdir x" works as a newcomer expects.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// terminalHostCommand starts this binary as the terminal host of stateDir
// (app.TerminalHostCommand).
func terminalHostCommand(stateDir string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe, app.TerminalHostArg, stateDir)
	cmd.Dir = "/"
	return cmd
}
