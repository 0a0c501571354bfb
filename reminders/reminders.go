// Package reminders builds the <system-reminder> blocks that keep a model aware of its todo list,
// of recently stored memories and of the user's standing instructions.
//
// A reminder is a short text block appended to a tool result (by the tool layer) or injected
// before the user message (by programs that run their own agent loop). It repeats what a model
// tends to lose over a long task: how far the plan is, what is in progress, what comes next, the
// progress rules, and which memories were just stored so they are not stored twice.
//
// Reminders cost tokens on every delivery, so [Builder.Next] delivers one only when its content
// changed since the last delivery in the conversation, or after Config.EveryNCalls calls without
// one, and every block is cut to Config.MaxTokens. Standing instructions ("always run the tests
// before committing", stored by the memory feature) come first in a block; they are delivered
// when they change, on the first call of a conversation in a process (a session's start), and
// with every periodic reminder. The delivery bookkeeping lives in the shared
// store, so all toolhost processes serving a conversation agree on it.
//
// Wiring for the tool layer: after every successful tool result call [Builder.Next] once and
// append the block as a separate text block when it says so; after a todo_operations result
// (which already shows the whole list) call [Builder.MarkDelivered] instead. In the pinned
// ten-step task (testdata/ten_step_task.golden) that is 1 reminder of 95 tokens over 57 calls,
// against 15 reminders and 1307 tokens without MarkDelivered.
package reminders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"toolhost/internal/todo"
	"toolhost/store"
)

// Defaults for Config fields left zero.
const (
	DefaultEveryNCalls  = 10
	DefaultMaxTokens    = 300
	DefaultNextItems    = 3
	DefaultMemoryWindow = 5 * time.Minute
)

// Per-item caps inside a block, so one long title cannot eat the token budget.
const (
	titleBytes       = 80
	shortTitleBytes  = 40
	noteBytes        = 120
	maxBlockedShown  = 2
	maxMemoriesShown = 5
)

// StateKey is the key, in the conversation's bucket ([todo.BucketPath]), of the delivery
// bookkeeping of [Builder.Next].
const StateKey = "reminder"

// Config controls delivery. The zero Config is "off"; start from [DefaultConfig].
type Config struct {
	// Enabled turns delivery by [Builder.Next] on. [Builder.For] works either way: it is an
	// explicit request.
	Enabled bool
	// EveryNCalls delivers an unchanged reminder again after this many calls without one.
	// 0 means DefaultEveryNCalls; negative means only on change.
	EveryNCalls int
	// MaxTokens caps a block (estimated with [EstimateTokens]). 0 means DefaultMaxTokens;
	// negative means no cap. The rules are never cut, so a very small cap can be exceeded.
	MaxTokens int
	// NextItems is how many upcoming not-started todos a block names. 0 means DefaultNextItems.
	NextItems int
	// MemoryWindow is how far back "recently stored memories" reach. 0 means DefaultMemoryWindow.
	MemoryWindow time.Duration
	// Project is the working directory whose standing instructions (with the user's) the
	// reminders repeat.
	Project string
}

// DefaultConfig is delivery on, with the documented defaults.
func DefaultConfig() Config {
	return Config{Enabled: true, EveryNCalls: DefaultEveryNCalls, MaxTokens: DefaultMaxTokens,
		NextItems: DefaultNextItems, MemoryWindow: DefaultMemoryWindow}
}

func (c Config) withDefaults() Config {
	if c.EveryNCalls == 0 {
		c.EveryNCalls = DefaultEveryNCalls
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.NextItems <= 0 {
		c.NextItems = DefaultNextItems
	}
	if c.MemoryWindow <= 0 {
		c.MemoryWindow = DefaultMemoryWindow
	}
	return c
}

// MemoryNote is a memory stored in the conversation, as the memory feature reports it.
type MemoryNote struct {
	ID         string
	Collection string
	Text       string
	StoredAt   time.Time
}

// MemorySource is implemented by the memory feature, so this package does not depend on it. It
// must not run a store transaction that conflicts with a caller's: [Builder] calls it outside
// its own transactions.
type MemorySource interface {
	// RecentMemories returns the memories stored in conversation conv at or after since.
	RecentMemories(ctx context.Context, conv string, since time.Time) ([]MemoryNote, error)
	// RecentBucket names the bucket of the Builder's store whose keys RecentMemories(conv)
	// reads, so the Builder keeps the notes while a [store.Stamp] of it holds; nil when they
	// come from elsewhere, and are then read on every call.
	RecentBucket(conv string) store.Path
}

// Instruction is one standing instruction of the user, as the memory feature reports it.
type Instruction struct {
	ID   uint64
	Text string
	// Scope is "user" (everywhere) or "project" (this working directory).
	Scope string
}

// InstructionSource is implemented by the memory feature when it keeps standing instructions;
// a MemorySource that also implements it has its instructions repeated.
type InstructionSource interface {
	// StandingInstructions returns the user's and project's current instructions.
	StandingInstructions(ctx context.Context, project string) ([]Instruction, error)
	// InstructionBucket names the bucket StandingInstructions reads, for the stamp.
	InstructionBucket() store.Path
}

// Builder builds and delivers reminders for any conversation. What was delivered is in the store;
// only the count of quiet calls since then is kept in memory (see [Builder.Next]), with a copy of
// what the last check read, valid while the store's stamp of its buckets holds.
type Builder struct {
	st    *store.Store
	cfg   Config
	mem   MemorySource
	instr InstructionSource
	now   func() time.Time

	mu sync.Mutex
	// quiet counts, per conversation, the calls without a reminder not yet added to the stored
	// CallsSince, so a call that delivers nothing writes nothing.
	quiet map[string]int
	// seen keeps, per conversation, what the last check read, so a call that finds its buckets'
	// stamp unchanged reads nothing either (see inputs).
	seen map[string]*inputs
	// started holds the conversations this Builder has delivered to: the first call of a
	// conversation in a process (a session's start) repeats the standing instructions.
	started map[string]bool
}

// maxSeen bounds the conversations whose inputs a Builder keeps; a serve process meets new
// conversations for as long as it runs.
const maxSeen = 64

// inputs is what the reminder check reads from the store for one conversation: the list, the
// delivery state and the recent memory notes, with the stamp of their buckets taken before the
// read. A model calls a tool every few seconds and the list changes far less often, so the
// check reads the store again only when the stamp says one of the buckets may have changed.
type inputs struct {
	stamp store.Stamp
	list  todo.List
	hash  string // todoHash(list)
	state state
	// notes are the recent memories from since on, when the memory source names its bucket
	// (notesKept); later checks drop those that left the window.
	notes     []MemoryNote
	since     time.Time
	notesKept bool
	// instr are the standing instructions, instrHash what identifies them.
	instr     []Instruction
	instrHash string
}

// New returns a Builder reading todo lists from st. mem may be nil (no memory reminders).
func New(st *store.Store, cfg Config, mem MemorySource) *Builder {
	b := &Builder{st: st, cfg: cfg.withDefaults(), mem: mem, now: time.Now, quiet: map[string]int{}, seen: map[string]*inputs{},
		started: map[string]bool{}}
	if is, ok := mem.(InstructionSource); ok {
		b.instr = is
	}
	return b
}

// For returns conv's current reminder with the default configuration: the Go API for programs
// that run their own agent loop and inject the reminder before each user message.
func For(ctx context.Context, st *store.Store, conv string) (string, error) {
	return New(st, DefaultConfig(), nil).For(ctx, conv)
}

// For always builds conv's current reminder, whatever the cadence (for resources, prompts and
// embedders). An empty list without memories gives the short "plan first" reminder.
func (b *Builder) For(ctx context.Context, conv string) (string, error) {
	notes, err := b.notes(ctx, conv, b.now().Add(-b.cfg.MemoryWindow))
	if err != nil {
		return "", err
	}
	l, err := todo.Read(ctx, b.st, conv)
	if err != nil {
		return "", err
	}
	instr, err := b.instructions(ctx)
	if err != nil {
		return "", err
	}
	return BuildWith(l, notes, instr, b.cfg), nil
}

func (b *Builder) instructions(ctx context.Context) ([]Instruction, error) {
	if b.instr == nil {
		return nil, nil
	}
	in, err := b.instr.StandingInstructions(ctx, b.cfg.Project)
	if err != nil {
		return nil, fmt.Errorf("standing instructions for reminder: %w", err)
	}
	return in, nil
}

// instructionHash identifies a list of instructions ("" for none).
func instructionHash(in []Instruction) string {
	if len(in) == 0 {
		return ""
	}
	h := sha256.New()
	for _, i := range in {
		fmt.Fprintf(h, "%d\x00%s\x00%s\n", i.ID, i.Scope, i.Text)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// state is the per-conversation delivery bookkeeping.
type state struct {
	// TodoHash identifies the todo part of the last delivered block.
	TodoHash string `json:"todo_hash,omitempty"`
	// NewestMemory is the newest memory note in the last delivered block.
	NewestMemory time.Time `json:"newest_memory,omitzero"`
	// CallsSince counts calls without a reminder since the last delivery.
	CallsSince  int       `json:"calls_since"`
	DeliveredAt time.Time `json:"delivered_at,omitzero"`
	// InstructionHash identifies the standing instructions of the last delivered block.
	InstructionHash string `json:"instruction_hash,omitempty"`
}

// Next implements the delivery cadence; the tool layer calls it once per tool result and
// appends block when ok. It delivers when the todo part differs from the last delivered one,
// when a memory newer than the last delivered one was stored, or after EveryNCalls calls without
// a reminder. Nothing is delivered when the configuration is off or there is nothing to say (an
// empty list and no recent memories).
//
// A call that delivers nothing writes nothing: its quiet call is counted in memory, because a
// synced write per tool call would cost more than the call itself. A conversation is leased by
// one session at a time, so the count is not shared; a restart forgets at most EveryNCalls
// calls, which only delays the next periodic reminder. Nor does it read, unless the store's
// stamp of the conversation's bucket or its recent memories moved since the last check (see
// [Builder.check]).
func (b *Builder) Next(ctx context.Context, conv string) (block string, ok bool, err error) {
	if !b.cfg.Enabled {
		return "", false, nil
	}
	in, notes, err := b.check(ctx, conv)
	if err != nil {
		return "", false, fmt.Errorf("reminder for %s: %w", conv, err)
	}
	// The user removed every standing instruction since the last block: say so once.
	removed := len(in.instr) == 0 && in.state.InstructionHash != ""
	if len(in.list.Todos) == 0 && len(notes) == 0 && len(in.instr) == 0 && !removed {
		return "", false, nil
	}
	newest := newestNote(notes)
	b.mu.Lock()
	calls := in.state.CallsSince + b.quiet[conv]
	// A session's start: the first call of the conversation in this process repeats the
	// standing instructions.
	start := len(in.instr) > 0 && !b.started[conv]
	b.mu.Unlock()
	changed := in.hash != in.state.TodoHash || newest.After(in.state.NewestMemory) || in.instrHash != in.state.InstructionHash
	due := b.cfg.EveryNCalls > 0 && calls >= b.cfg.EveryNCalls
	if !changed && !due && !start {
		b.mu.Lock()
		b.quiet[conv]++
		b.mu.Unlock()
		return "", false, nil
	}
	s := state{TodoHash: in.hash, NewestMemory: newest, DeliveredAt: b.now().UTC(), InstructionHash: in.instrHash}
	if err := b.st.Update(ctx, func(tx *store.Tx) error {
		return tx.PutJSON(todo.BucketPath(conv), StateKey, s)
	}); err != nil {
		return "", false, fmt.Errorf("reminder for %s: %w", conv, err)
	}
	b.resetQuiet(conv)
	b.mu.Lock()
	if len(b.started) >= 4*maxSeen {
		clear(b.started)
	}
	b.started[conv] = true
	b.mu.Unlock()
	block = BuildWith(in.list, notes, in.instr, b.cfg)
	if removed {
		block = strings.Replace(block, "<system-reminder>\n", "<system-reminder>\n"+removedLine+"\n", 1)
	}
	return block, true, nil
}

// removedLine tells the model that the standing instructions it was given are gone.
const removedLine = "The user removed the standing instructions given before: do not follow them any more."

// check returns what the reminder check needs for conv: the list and delivery state as they
// are in the store, and the memory notes inside the window now. It reads them only when the
// stamp of their buckets moved since the last check (or there was none); otherwise it answers
// from memory, dropping the notes that left the window. The inputs it returns are shared: read
// them, never change them.
func (b *Builder) check(ctx context.Context, conv string) (*inputs, []MemoryNote, error) {
	if conv == "" {
		return nil, nil, todo.ErrNoConversation
	}
	since := b.now().Add(-b.cfg.MemoryWindow)
	buckets := []store.Path{todo.BucketPath(conv)}
	var memBucket store.Path
	if b.mem != nil {
		if memBucket = b.mem.RecentBucket(conv); memBucket != nil {
			buckets = append(buckets, memBucket)
		}
	}
	if b.instr != nil {
		buckets = append(buckets, b.instr.InstructionBucket())
	}
	stamp := b.st.Stamp(buckets...)
	b.mu.Lock()
	in := b.seen[conv]
	b.mu.Unlock()
	if in != nil && !in.stamp.Changed(stamp) && !since.Before(in.since) {
		if !in.notesKept {
			notes, err := b.notes(ctx, conv, since)
			return in, notes, err
		}
		i := 0
		for i < len(in.notes) && in.notes[i].StoredAt.Before(since) {
			i++
		}
		return in, in.notes[i:], nil
	}
	notes, err := b.notes(ctx, conv, since)
	if err != nil {
		return nil, nil, err
	}
	instr, err := b.instructions(ctx)
	if err != nil {
		return nil, nil, err
	}
	in = &inputs{stamp: stamp, notes: notes, since: since, notesKept: memBucket != nil || b.mem == nil,
		instr: instr, instrHash: instructionHash(instr)}
	if err := b.st.View(ctx, func(tx *store.Tx) error {
		var err error
		if in.list, err = todo.Load(tx, conv); err != nil {
			return err
		}
		if _, err := tx.GetJSON(todo.BucketPath(conv), StateKey, &in.state); err != nil {
			return fmt.Errorf("read reminder state: %w", err)
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	in.hash = todoHash(in.list)
	// Notes come oldest first from the source; keep them so, for the window cut above.
	slices.SortStableFunc(in.notes, func(a, c MemoryNote) int { return a.StoredAt.Compare(c.StoredAt) })
	b.mu.Lock()
	if len(b.seen) >= maxSeen {
		for k := range b.seen {
			delete(b.seen, k)
			break
		}
	}
	b.seen[conv] = in
	b.mu.Unlock()
	return in, in.notes, nil
}

func (b *Builder) resetQuiet(conv string) {
	b.mu.Lock()
	delete(b.quiet, conv)
	b.mu.Unlock()
}

// MarkDelivered records conv's current state as seen without returning a block. The tool layer
// calls it after a todo_operations result, which already shows the whole list, so the next tool
// result does not repeat it. When the stored state already says so (a read after a read), it
// writes nothing.
func (b *Builder) MarkDelivered(ctx context.Context, conv string) error {
	if !b.cfg.Enabled {
		return nil
	}
	in, notes, err := b.check(ctx, conv)
	if err != nil {
		return err
	}
	newest := newestNote(notes)
	if in.state.TodoHash == in.hash && in.state.NewestMemory.Equal(newest) {
		b.resetQuiet(conv)
		return nil
	}
	instrHash := in.state.InstructionHash // a todo result does not show the instructions
	return b.st.Update(ctx, func(tx *store.Tx) error {
		l, err := todo.Load(tx, conv)
		if err != nil {
			return err
		}
		s := state{TodoHash: todoHash(l), NewestMemory: newest, DeliveredAt: b.now().UTC(), InstructionHash: instrHash}
		if err := tx.PutJSON(todo.BucketPath(conv), StateKey, s); err != nil {
			return err
		}
		b.resetQuiet(conv)
		return nil
	})
}

func (b *Builder) notes(ctx context.Context, conv string, since time.Time) ([]MemoryNote, error) {
	if conv == "" {
		return nil, todo.ErrNoConversation
	}
	if b.mem == nil {
		return nil, nil
	}
	notes, err := b.mem.RecentMemories(ctx, conv, since)
	if err != nil {
		return nil, fmt.Errorf("recent memories for reminder: %w", err)
	}
	return notes, nil
}

func newestNote(notes []MemoryNote) time.Time {
	var t time.Time
	for _, n := range notes {
		if n.StoredAt.After(t) {
			t = n.StoredAt
		}
	}
	return t
}

// todoHash identifies what the todo part of a reminder says: the uncapped text with the default
// item count, so changes a reminder would not show (a description edit) do not trigger one.
func todoHash(l todo.List) string {
	if len(l.Todos) == 0 {
		return ""
	}
	lines := todoLines(l, shape{next: DefaultNextItems, blocked: maxBlockedShown})
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:12])
}

// EstimateTokens estimates the tokens of s for capping: one per 3.5 ASCII bytes (reminder text,
// with its ids, numbers and punctuation, measures 3.7-3.9 bytes per token in o200k_base and
// cl100k_base; plain English prose is nearer 4) plus one per non-ASCII rune (which BPE
// vocabularies rarely merge). It errs on the high side so the cap holds; a test checks it against
// the real tokenizers for every golden variant.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii++
		} else {
			other++
		}
	}
	return (2*ascii+6)/7 + other
}

// shape is how much of each shrinkable part a block shows.
type shape struct {
	next, notes, blocked, instr int
	shortTitles, shortInstr     bool
}

// Build renders the reminder for list l and memory notes, cut to cfg.MaxTokens: first the upcoming
// todos go (replaced by "(+N more)"), then memory notes, then blocked items, then titles are
// shortened; the rules always stay. Pure, for golden tests and for embedders with their own state.
func Build(l todo.List, notes []MemoryNote, cfg Config) string { return BuildWith(l, notes, nil, cfg) }

// BuildWith is Build with the user's standing instructions, which come first. Under the token
// cap they are the last to shrink: first each is cut to a shorter line, then the newest go.
func BuildWith(l todo.List, notes []MemoryNote, instr []Instruction, cfg Config) string {
	cfg = cfg.withDefaults()
	notes = slices.Clone(notes)
	slices.SortStableFunc(notes, func(a, b MemoryNote) int { return b.StoredAt.Compare(a.StoredAt) })
	sh := shape{next: cfg.NextItems, notes: min(len(notes), maxMemoriesShown), blocked: maxBlockedShown, instr: len(instr)}
	text := render(l, notes, instr, cfg, sh)
	for cfg.MaxTokens > 0 && EstimateTokens(text) > cfg.MaxTokens {
		switch {
		case sh.next > 0:
			sh.next--
		case sh.notes > 0:
			sh.notes--
		case sh.blocked > 0:
			sh.blocked--
		case !sh.shortTitles:
			sh.shortTitles = true
		case !sh.shortInstr && sh.instr > 0:
			sh.shortInstr = true
		case sh.instr > 1:
			sh.instr--
		default:
			return text
		}
		text = render(l, notes, instr, cfg, sh)
	}
	return text
}

// Per-instruction caps in a block.
const (
	instrBytes      = 200
	shortInstrBytes = 80
)

func render(l todo.List, notes []MemoryNote, instr []Instruction, cfg Config, sh shape) string {
	var lines []string
	if len(instr) > 0 {
		lines = append(lines, "Standing instructions from the user (follow them until the user removes them):")
		limit := instrBytes
		if sh.shortInstr {
			limit = shortInstrBytes
		}
		for _, in := range instr[:sh.instr] {
			lines = append(lines, "- "+todo.Shorten(strings.Join(strings.Fields(in.Text), " "), limit)+" ["+in.Scope+"]")
		}
		if hidden := len(instr) - sh.instr; hidden > 0 {
			lines = append(lines, fmt.Sprintf("- (+%d more standing instructions)", hidden))
		}
	}
	if len(l.Todos) > 0 || len(notes) == 0 && len(instr) == 0 {
		lines = append(lines, todoLines(l, sh)...)
	}
	if len(notes) > 0 {
		lines = append(lines, fmt.Sprintf("Memories stored in the last %s (already saved; do not store them again):", window(cfg.MemoryWindow)))
		for _, n := range notes[:sh.notes] {
			line := "- " + todo.Shorten(strings.Join(strings.Fields(n.Text), " "), noteBytes)
			if n.Collection != "" {
				line += " [" + n.Collection + "]"
			}
			lines = append(lines, line)
		}
		if hidden := len(notes) - sh.notes; hidden > 0 {
			lines = append(lines, fmt.Sprintf("- (+%d more)", hidden))
		}
	}
	return "<system-reminder>\n" + strings.Join(lines, "\n") + "\n</system-reminder>"
}

func window(d time.Duration) string {
	if d%time.Minute == 0 {
		m := int(d / time.Minute)
		if m == 1 {
			return "minute"
		}
		return strconv.Itoa(m) + " minutes"
	}
	return d.String()
}

const (
	emptyLine = "The todo list is empty. For a task with several steps, plan it with the todo_operations tool before starting, then mark each todo in-progress before starting it and completed right after finishing it."
	rulesLine = "Rules: mark a todo in-progress before starting it and completed right after finishing it, one in-progress at a time; record progress with the todo_operations tool, not in prose."
)

// subtasksOf maps each todo id to the ids of its subtasks.
func subtasksOf(l todo.List) map[int][]int {
	out := map[int][]int{}
	for _, t := range l.Todos {
		if t.Parent != 0 {
			out[t.Parent] = append(out[t.Parent], t.ID)
		}
	}
	return out
}

// todoLines is the todo reminder for l: the count, the todo in progress, what comes next, what
// is blocked, and the rules.
func todoLines(l todo.List, sh shape) []string {
	if len(l.Todos) == 0 {
		return []string{emptyLine}
	}
	w := todoWriter{l: l, limit: titleBytes, sub: subtasksOf(l)}
	if sh.shortTitles {
		w.limit = shortTitleBytes
	}
	s := l.Stats()
	if s.Completed == s.Total {
		return []string{
			fmt.Sprintf("Todos: all %d completed. Add new todos with the todo_operations tool before starting further work.", s.Total),
			rulesLine,
		}
	}
	head := fmt.Sprintf("Todos: %d/%d completed (%d%%)", s.Completed, s.Total, s.PercentDone)
	if s.Blocked > 0 {
		head += fmt.Sprintf(", %d blocked", s.Blocked)
	}
	lines := []string{head + "."}
	current, working := l.InProgress()
	if working {
		lines = append(lines, w.inProgress(current))
	} else if s.NotStarted > 0 {
		lines = append(lines, "In progress: none. Mark the next todo in-progress before starting it.")
	}
	if next := w.upcoming(current, working); len(next) > 0 {
		shown := next[:min(sh.next, len(next))]
		parts := make([]string, len(shown))
		for i, t := range shown {
			parts[i] = w.item(t)
			if n := len(w.sub[t.ID]); n == 1 {
				parts[i] += " (1 subtask)"
			} else if n > 1 {
				parts[i] += fmt.Sprintf(" (%d subtasks)", n)
			}
		}
		hidden := len(next) - len(shown)
		lines = append(lines, listLine("Next: ", parts, hidden,
			fmt.Sprintf("Next: %d not-started (see the todo_operations tool's read)", hidden)))
	}
	// A parent is blocked only through its subtasks, which are listed themselves.
	var blocked []todo.Todo
	for _, t := range l.Todos {
		if t.Status == todo.StatusBlocked && len(w.sub[t.ID]) == 0 {
			blocked = append(blocked, t)
		}
	}
	if len(blocked) > 0 {
		shown := blocked[:min(sh.blocked, len(blocked))]
		parts := make([]string, len(shown))
		for i, t := range shown {
			parts[i] = w.item(t) + " (" + todo.Shorten(t.BlockedReason, w.limit) + ")"
		}
		hidden := len(blocked) - len(shown)
		lines = append(lines, listLine("Blocked: ", parts, hidden, fmt.Sprintf("Blocked: %d todos", hidden)))
	}
	return append(lines, rulesLine)
}

// todoWriter writes the lines of the todo reminder for one list.
type todoWriter struct {
	l     todo.List
	limit int // a title's bytes
	sub   map[int][]int
}

// item is a todo as the reminder names it: its id and shortened title.
func (w todoWriter) item(t todo.Todo) string {
	return strconv.Itoa(t.ID) + ". " + todo.Shorten(t.Title, w.limit)
}

// inProgress is the line of the todo in progress, with its progress and its parent.
func (w todoWriter) inProgress(current todo.Todo) string {
	line := "In progress: " + w.item(current)
	if current.Progress > 0 {
		line += fmt.Sprintf(" (%d%%)", int(current.Progress*100+0.5))
	}
	if path := w.l.Path(current.ID); len(path) > 0 {
		line += " in " + w.item(path[len(path)-1])
	}
	return line
}

// upcoming lists the todos to do next, subtasks collapsed: the open subtasks of the todo in
// progress come first, one by one; every other not-started todo stands for its subtasks, with
// their count. Within each, todos whose dependencies are all completed come before the rest,
// in list order.
func (w todoWriter) upcoming(current todo.Todo, working bool) []todo.Todo {
	var near, far []todo.Todo
	top := map[int]bool{}
	if working {
		if path := w.l.Path(current.ID); len(path) > 0 {
			// The current todo's open siblings, then its parent's, up to the top level.
			chain := append(slices.Clone(path[1:]), current)
			for i := len(chain) - 1; i >= 0; i-- {
				for _, t := range w.l.Todos {
					if t.Parent == chain[i].Parent && t.ID != chain[i].ID && t.Status == todo.StatusNotStarted {
						near = append(near, t)
					}
				}
			}
			top[path[0].ID] = true
		} else {
			top[current.ID] = true
		}
	}
	for _, t := range w.l.Todos {
		if t.Parent != 0 || top[t.ID] || t.Status != todo.StatusNotStarted {
			continue
		}
		far = append(far, t)
	}
	status := map[int]todo.Status{}
	for _, t := range w.l.Todos {
		status[t.ID] = t.Status
	}
	return append(readyFirst(near, status), readyFirst(far, status)...)
}

// readyFirst puts the todos whose dependencies are all completed before the rest, each in
// list order.
func readyFirst(ts []todo.Todo, status map[int]todo.Status) []todo.Todo {
	var ready, waiting []todo.Todo
	for _, t := range ts {
		if slices.ContainsFunc(t.Dependencies, func(d int) bool { return status[d] != todo.StatusCompleted }) {
			waiting = append(waiting, t)
		} else {
			ready = append(ready, t)
		}
	}
	return append(ready, waiting...)
}

// listLine is label and the parts shown, with the count of those hidden; with none shown it
// is the line none.
func listLine(label string, parts []string, hidden int, none string) string {
	if len(parts) == 0 && hidden > 0 {
		return none
	}
	line := label + strings.Join(parts, "; ")
	if hidden > 0 {
		line += fmt.Sprintf(" (+%d more)", hidden)
	}
	return line
}
