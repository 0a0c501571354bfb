package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"toolhost/internal/embed"
	"toolhost/store"
	"toolhost/store/storetest"
)

// The retrieval sets (testdata/recall, made by its generator: go run
// ./internal/memory/testdata/recall/gen) are a software team's project notes and questions about
// them in six classes: the tuning set, on which the ranking was developed, and the held-out set
// (testdata/recall/heldout, -set heldout), another project written with other templates and
// kept out of the tuning loop, so that a change that helps only the tuning set's wording shows,
// and the blind set (testdata/recall/blind, -set blind), a data platform team's notes written
// without reading the ranking code or the other sets' templates after the held-out set's misses
// had been read; it was read on 2026-12-07 while supersession rules were tuned and is now a
// development set. The blind2 set (testdata/recall/blind2, -set blind2), an agency's and a
// connected-hardware app's notes written after that, without the ranking code or the other
// sets' templates, is the one never tuned on. The blind3 set (testdata/recall/blind3, -set
// blind3), a hospital IT department's notes written the same way, was read in round 6 (its
// misses, for the place codes, telephone numbers and copies of the ranking) and is a
// development set now. The blind4 set (a two-person online shop), the blind5 set (a
// university research-computing group) and the blind6 set (a restaurant group), written the
// same way in round 6, arbitrate a ranking change; their misses are never read.
// TestRecall stores each set's notes through Service.Store in one topic, in file order, asks
// every question through Service.Search as search_memory does, and prints recall@1, recall@5,
// MRR and the search latency per class.

type recallMemory struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

type recallQuery struct {
	Class string `json:"class"`
	Lang  string `json:"lang"`
	Query string `json:"query"`
	Want  string `json:"want"`
	Old   string `json:"old"`
}

// recallClasses in the order the table shows them.
var recallClasses = []string{"paraphrase", "identifier", "number", "correction", "language", "distractor"}

// recallSets are the sets' directories under testdata/recall.
var recallSets = []string{"tuning", "heldout", "blind", "blind2", "blind3", "blind4", "blind5", "blind6"}

func recallDir(set string) string {
	if set == "tuning" {
		return filepath.Join("testdata", "recall")
	}
	return filepath.Join("testdata", "recall", set)
}

func readJSONL[T any](t testing.TB, set, name string) []T {
	t.Helper()
	f, err := os.Open(filepath.Join(recallDir(set), name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var x T
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// recallRow is one class's figures.
type recallRow struct {
	n, at1, at5 int
	mrr         float64
	// oldFirst counts corrections whose replaced note ranked above the correction.
	oldFirst int
	lat      []time.Duration
	misses   []string
}

func (r *recallRow) r1() float64 { return float64(r.at1) / float64(max(r.n, 1)) }
func (r *recallRow) r5() float64 { return float64(r.at5) / float64(max(r.n, 1)) }

func (r *recallRow) p50() time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	d := slices.Clone(r.lat)
	slices.Sort(d)
	return d[len(d)/2]
}

// recallResult is a whole run: a row per class and the total.
type recallResult struct {
	rows       map[string]*recallRow
	all        recallRow
	store      time.Duration
	lost       int // notes Store refused (a duplicate that was not one)
	superseded int
	// wrongVersions lists notes stored as a version of a note they do not correct: every such
	// supersession hides a fact.
	wrongVersions []string
	// unversioned lists the corrections stored beside the note they correct.
	unversioned []string
}

// recallStore is the set stored once, to ask its questions under several configurations.
type recallStore struct {
	s          *Service
	ids        map[string]uint64
	text       map[string]string // key → the note's text
	queries    []recallQuery
	store      time.Duration
	lost       int // notes Store refused (the set holds no duplicates)
	superseded int // notes stored as a newer version of another
	// wrongVersions are the notes stored as a newer version of a note they do not correct.
	wrongVersions []string
}

// storeRecall stores a set's notes into a fresh store with cfg, in file order, from one
// conversation into one topic.
func storeRecall(t testing.TB, set string, cfg Config) *recallStore {
	t.Helper()
	ctx := context.Background()
	mems := readJSONL[recallMemory](t, set, "memories.jsonl")
	rs := &recallStore{s: New(storetest.Open(t), cfg), ids: map[string]uint64{}, queries: readJSONL[recallQuery](t, set, "queries.jsonl")}
	corrects := map[string]string{} // correction → the note it corrects
	for _, q := range rs.queries {
		if q.Old != "" {
			corrects[q.Want] = q.Old
		}
	}
	keyOf, text := map[uint64]string{}, map[string]string{}
	rs.text = text
	t0 := time.Now()
	for _, m := range mems {
		r, err := rs.s.Store(ctx, StoreRequest{Conversation: "notes", Scope: "topic:project", Content: m.Text})
		if err != nil {
			t.Fatalf("Store(%s): %v", m.Key, err)
		}
		if r.Duplicate != NotDuplicate {
			rs.lost++
			continue
		}
		if r.Superseded != 0 {
			rs.superseded++
			if old := keyOf[r.Superseded]; corrects[m.Key] != old {
				rs.wrongVersions = append(rs.wrongVersions, fmt.Sprintf("%s %q replaced %s %q", m.Key, m.Text, old, text[old]))
			}
		}
		rs.ids[m.Key] = r.ID
		keyOf[r.ID], text[m.Key] = m.Key, m.Text
	}
	rs.store = time.Since(t0)
	return rs
}

// runRecall stores a set with cfg and asks its questions.
func runRecall(t testing.TB, set string, cfg Config) recallResult {
	t.Helper()
	return storeRecall(t, set, cfg).ask(t)
}

// ask asks every question as search_memory does (limit 10, the default threshold) from
// another conversation that names the topic.
func (rs *recallStore) ask(t testing.TB) recallResult {
	t.Helper()
	ctx := context.Background()
	res := recallResult{rows: map[string]*recallRow{}, store: rs.store, lost: rs.lost, superseded: rs.superseded, wrongVersions: rs.wrongVersions}
	for _, c := range recallClasses {
		res.rows[c] = &recallRow{}
	}
	explain := os.Getenv("TOOLHOST_RECALL_MISSES") != ""
	var ranked []*candidate
	if explain {
		rs.s.onFuse = func(_ queryPlan, cands []*candidate) { ranked = slices.Clone(cands) }
		defer func() { rs.s.onFuse = nil }()
	}
	for _, q := range rs.queries {
		row := res.rows[q.Class]
		if row == nil {
			t.Fatalf("query %q: unknown class %q", q.Query, q.Class)
		}
		t0 := time.Now()
		hits, err := rs.s.Search(ctx, SearchRequest{Conversation: "asker", Query: q.Query, Scopes: []string{"project"}, Limit: 10})
		d := time.Since(t0)
		if err != nil {
			t.Fatalf("Search(%q): %v", q.Query, err)
		}
		want, old := rs.ids[q.Want], rs.ids[q.Old]
		rank, oldRank := -1, -1
		for i, h := range hits {
			if want != 0 && h.ID == want && rank < 0 {
				rank = i
			}
			if old != 0 && h.ID == old && oldRank < 0 {
				oldRank = i
			}
		}
		for _, r := range []*recallRow{row, &res.all} {
			r.n++
			r.lat = append(r.lat, d)
			if rank == 0 {
				r.at1++
			}
			if rank >= 0 && rank < 5 {
				r.at5++
			}
			if rank >= 0 {
				r.mrr += 1 / float64(rank+1)
			}
			if oldRank >= 0 && (rank < 0 || oldRank < rank) {
				r.oldFirst++
			}
		}
		if q.Old != "" && old != 0 {
			if m, err := rs.s.Get(ctx, "asker", old); err == nil && m.SupersededBy == 0 {
				res.unversioned = append(res.unversioned, fmt.Sprintf("%s still current beside %s", q.Old, q.Want))
			}
		}
		if rank != 0 {
			top := "nothing"
			if len(hits) > 0 {
				top = fmt.Sprintf("%q", hits[0].Content)
			}
			miss := fmt.Sprintf("%s rank %d: %q → %s", q.Want, rank, q.Query, top)
			if explain {
				miss += rs.why(ranked, want, old, q)
			}
			row.misses = append(row.misses, miss)
		}
	}
	return res
}

// why shows the signals of the first three candidates of a missed question and of the note it
// wanted (and the note that one corrects).
func (rs *recallStore) why(ranked []*candidate, want, old uint64, q recallQuery) string {
	var b strings.Builder
	show := func(mark string, i int, c *candidate) {
		fmt.Fprintf(&b, "\n\t%s %2d score %.3f cos %.2f lex %.2f exact %.2f words %.2f answer %-5v other %-5v %q",
			mark, i, c.score, c.cos, c.lex, c.exact, c.words, c.answer, c.other, c.rec.Content)
	}
	for i, c := range ranked {
		switch {
		case i < 3:
			show("  ", i, c)
		case c.id == want:
			show("want", i, c)
		case c.id == old:
			show("old ", i, c)
		}
	}
	if !slices.ContainsFunc(ranked, func(c *candidate) bool { return c.id == want }) {
		fmt.Fprintf(&b, "\n\twant not a candidate: %q", rs.text[q.Want])
	}
	if q.Old != "" {
		fmt.Fprintf(&b, "\n\tcorrects %s %q", q.Old, rs.text[q.Old])
	}
	return b.String()
}

// table renders the per-class figures.
func (res recallResult) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %4s %6s %6s %6s %9s %9s\n", "class", "n", "R@1", "R@5", "MRR", "p50", "old-first")
	line := func(name string, r *recallRow) {
		fmt.Fprintf(&b, "%-11s %4d %6.3f %6.3f %6.3f %9s %9d\n", name, r.n, r.r1(), r.r5(), r.mrr/float64(max(r.n, 1)),
			r.p50().Round(10*time.Microsecond), r.oldFirst)
	}
	for _, c := range recallClasses {
		line(c, res.rows[c])
	}
	line("all", &res.all)
	fmt.Fprintf(&b, "stored the notes in %s; %d refused as duplicates, %d stored as newer versions (%d of a note they do not correct); %d corrections stored beside the note they correct\n",
		res.store.Round(time.Millisecond), res.lost, res.superseded, len(res.wrongVersions), len(res.unversioned))
	return b.String()
}

// recallTarget is a class's floor: R@1 and R@5 below it fail TestRecall. issue says what issue
// 30 asks; where a set does not reach it yet the floor is the figure reached (rounded down),
// so that a change can only raise it, and the report says the target is not met.
type recallTarget struct {
	r1, r5           float64
	issueR1, issueR5 float64
}

// recallTargets are the floors per set and class.
var recallTargets = map[string]map[string]recallTarget{
	// The development sets' floors are the figures reached: a change can only raise them.
	"tuning": {
		"paraphrase": {r1: 0.59, r5: 0.87, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 1.00, r5: 1.00, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.95, r5: 0.97, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.78, r5: 0.95, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.73, r5: 0.95, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.89, r5: 0.95, issueR1: 0.90, issueR5: 0.97},
	},
	"heldout": {
		"paraphrase": {r1: 0.58, r5: 0.83, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 1.00, r5: 1.00, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.96, r5: 1.00, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.72, r5: 0.98, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.54, r5: 0.84, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.77, r5: 0.95, issueR1: 0.90, issueR5: 0.97},
	},
	// The blind set, read on 2026-12-07 while tuning the store's version rules, is a
	// development set now: its floors are the figures reached, too.
	"blind": {
		"paraphrase": {r1: 0.49, r5: 0.91, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 1.00, r5: 1.00, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.63, r5: 0.91, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.67, r5: 0.99, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.43, r5: 0.76, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.96, r5: 1.00, issueR1: 0.90, issueR5: 0.97},
	},
	// blind3, read in round 6, is a development set too.
	"blind3": {
		"paraphrase": {r1: 0.65, r5: 0.99, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 0.93, r5: 0.97, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.90, r5: 0.94, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.79, r5: 0.98, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.68, r5: 0.91, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.78, r5: 0.91, issueR1: 0.90, issueR5: 0.97},
	},
	// The blind sets' floors are their figures less 0.05: a guard against a plain regression,
	// loose enough that a ranking change is not steered by their single questions. blind2's are
	// its figures at the end of round 5 (its first run, at 40452d3, had language 0.47 / 0.76;
	// the attribute answer types cost it 0.06 at R@1, measured and kept: docs/memory.md).
	"blind2": {
		"paraphrase": {r1: 0.35, r5: 0.81, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 0.95, r5: 0.95, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.80, r5: 0.91, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.67, r5: 0.86, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.36, r5: 0.76, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.41, r5: 0.85, issueR1: 0.90, issueR5: 0.97},
	},
	// blind4's, blind5's and blind6's first figures (round 6), less 0.05: their misses were
	// never read (blind4's and blind5's store-side lists were, for the store's rules).
	"blind4": {
		"paraphrase": {r1: 0.47, r5: 0.89, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 0.95, r5: 0.95, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.60, r5: 0.88, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.40, r5: 0.80, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.44, r5: 0.73, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.57, r5: 0.85, issueR1: 0.90, issueR5: 0.97},
	},
	"blind5": {
		"paraphrase": {r1: 0.58, r5: 0.86, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 0.94, r5: 0.94, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.70, r5: 0.86, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.41, r5: 0.74, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.49, r5: 0.74, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.45, r5: 0.80, issueR1: 0.90, issueR5: 0.97},
	},
	"blind6": {
		"paraphrase": {r1: 0.69, r5: 0.93, issueR1: 0.60, issueR5: 0.85},
		"identifier": {r1: 0.94, r5: 0.95, issueR1: 0.90, issueR5: 0.97},
		"number":     {r1: 0.77, r5: 0.88, issueR1: 0.90, issueR5: 0.97},
		"correction": {r1: 0.63, r5: 0.92, issueR1: 0.90, issueR5: 0.97},
		"language":   {r1: 0.46, r5: 0.75, issueR1: 0.50, issueR5: 0.75},
		"distractor": {r1: 0.57, r5: 0.87, issueR1: 0.90, issueR5: 0.97},
	},
}

// recallLimits bound, per set, the corrections ranked below the note they correct and the
// notes stored as a version of a note they do not correct.
var recallLimits = map[string]struct{ oldFirst, wrongVersions int }{
	"tuning":  {oldFirst: 4, wrongVersions: 0},
	"heldout": {oldFirst: 6, wrongVersions: 0},
	// Eight of blind's nine are "go-to person for T: X" restated with another person, which its
	// author drew as two facts and the store takes as one fact with a new value.
	"blind":  {oldFirst: 10, wrongVersions: 9},
	"blind3": {oldFirst: 10, wrongVersions: 10},
	// blind4's and blind5's store-side lists were read: the counts reached.
	"blind4": {oldFirst: 21, wrongVersions: 9},
	"blind5": {oldFirst: 29, wrongVersions: 25},
	// The blind sets: the counts of their first figures, plus five.
	"blind2": {oldFirst: 17, wrongVersions: 8},
	"blind6": {oldFirst: 25, wrongVersions: 16},
}

// TestRecall runs the retrieval sets with the default configuration, prints a table per set
// and fails below the floors of recallTargets:
//
//	go test -run '^TestRecall$' -v ./internal/memory
//
// TOOLHOST_RECALL_SET=tuning (or heldout, blind, blind2 ... blind6) runs one set only: tune on
// the tuning set, look at the held-out, blind and blind3 sets only to check that a gain holds,
// and at the blind2, blind4, blind5 and blind6 sets only for their tables, never their misses.
// TOOLHOST_RECALL_MISSES=1 also prints every question whose note was not ranked first. Under
// CI the OS dictionaries and WordNet must be installed (.ci/run installs them): without them
// the other-language figures mean nothing.
func TestRecall(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("about 2,600 USE-Lite passes per set: too slow under -race or -short; runs in the plain test run")
	}
	s := New(storetest.Open(t), Config{})
	for _, src := range s.Lexicon().Sources() {
		if !src.Found && os.Getenv("CI") == "true" {
			t.Fatalf("%s (%s) is not installed; .ci/run installs it", src.Name, src.Package)
		}
	}
	for _, set := range recallSets {
		if only := os.Getenv("TOOLHOST_RECALL_SET"); only != "" && only != set {
			continue
		}
		t.Run(set, func(t *testing.T) { testRecallSet(t, set) })
	}
}

func testRecallSet(t *testing.T, set string) {
	res := runRecall(t, set, Config{})
	t.Logf("%s set\n%s", set, res.table())
	for _, c := range recallClasses {
		row, want := res.rows[c], recallTargets[set][c]
		if row.r1() < want.r1 || row.r5() < want.r5 {
			t.Errorf("%s: R@1 %.2f R@5 %.2f, below the floor %.2f / %.2f", c, row.r1(), row.r5(), want.r1, want.r5)
		}
		if row.r1() < want.issueR1 || row.r5() < want.issueR5 {
			t.Logf("%s: issue 30's target %.2f / %.2f not met yet", c, want.issueR1, want.issueR5)
		}
	}
	lim := recallLimits[set]
	if res.all.oldFirst > lim.oldFirst {
		t.Errorf("%d corrections ranked below the note they correct, want at most %d", res.all.oldFirst, lim.oldFirst)
	}
	if len(res.wrongVersions) > lim.wrongVersions {
		t.Errorf("%d notes stored as a version of a note they do not correct, want at most %d", len(res.wrongVersions), lim.wrongVersions)
	}
	if os.Getenv("TOOLHOST_RECALL_MISSES") != "" {
		for _, w := range res.wrongVersions {
			t.Logf("wrong version: %s", w)
		}
		for _, u := range res.unversioned {
			t.Logf("unversioned: %s", u)
		}
		for _, c := range recallClasses {
			for _, m := range res.rows[c].misses {
				t.Logf("%s miss: %s", c, m)
			}
		}
	}
}

// recallSet is the set TestRecallSignals and TestRecallTune measure: TOOLHOST_RECALL_SET, or
// the tuning set.
func recallSet() string {
	if s := os.Getenv("TOOLHOST_RECALL_SET"); s != "" {
		return s
	}
	return "tuning"
}

// TestRecallSignals stores the set once and asks its questions with every ranking signal, then
// with each one switched off, and prints what each adds (R@1 per class):
//
//	go test -run '^TestRecallSignals$' -v ./internal/memory
func TestRecallSignals(t *testing.T) {
	if raceEnabled || testing.Short() || os.Getenv("TOOLHOST_RECALL_SIGNALS") == "" {
		t.Skip("set TOOLHOST_RECALL_SIGNALS=1 to measure each signal (about a minute)")
	}
	rs := storeRecall(t, recallSet(), Config{Index: IndexKind(os.Getenv("TOOLHOST_RECALL_INDEX"))})
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s", "R@1 / R@5")
	for _, c := range recallClasses {
		fmt.Fprintf(&b, " %13s", c)
	}
	b.WriteString("\n")
	row := func(name string) {
		res := rs.ask(t)
		fmt.Fprintf(&b, "%-22s", name)
		for _, c := range recallClasses {
			fmt.Fprintf(&b, "   %.2f / %.2f", res.rows[c].r1(), res.rows[c].r5())
		}
		b.WriteString("\n")
	}
	row("all signals")
	signals := []string{SignalLexical, SignalExact, SignalStem, SignalSynonyms, SignalWords, SignalTranslate, SignalAnswer, SignalNames, SignalNewer}
	for _, sig := range signals {
		rs.s.off[sig] = true
		row("without " + sig)
		rs.s.off[sig] = false
	}
	rs.s.w.sif = 0.25
	row("with sif 0.25")
	rs.s.w.sif = 0
	for _, sig := range signals {
		rs.s.off[sig] = true
	}
	row("vector only")
	t.Log("\n" + b.String())
}

// TestRecallTune asks the set's questions over a grid of weights (TOOLHOST_RECALL_TUNE=1), to
// choose defaultWeights.
func TestRecallTune(t *testing.T) {
	if raceEnabled || testing.Short() || os.Getenv("TOOLHOST_RECALL_TUNE") == "" {
		t.Skip("set TOOLHOST_RECALL_TUNE=1 to search the weights")
	}
	rs := storeRecall(t, recallSet(), Config{})
	var b strings.Builder
	for _, answer := range []float64{0.35, 0.5, 0.7} {
		for _, words := range []float64{0.25, 0.4, 0.6} {
			for _, lex := range []float64{0.65, 0.8, 1} {
				rs.s.w = defaultWeights
				rs.s.w.answer, rs.s.w.words, rs.s.w.lex = answer, words, lex
				res := rs.ask(t)
				fmt.Fprintf(&b, "answer %.2f words %.2f lex %.2f:", answer, words, lex)
				for _, c := range recallClasses {
					fmt.Fprintf(&b, " %.2f", res.rows[c].r1())
				}
				fmt.Fprintf(&b, " | all %.3f\n", res.all.r1())
			}
		}
	}
	t.Log("\n" + b.String())
}

// BenchmarkRecallSearch10k measures search_memory as the server runs it by default — the
// built-in USE-Lite embedding of the question, the vector index, BM25, the fused ranking and
// the reads of the hits — over 10,000 project notes: the set's 2,032 notes and variants of
// them (another service, host or customer number), with vectors of USE-Lite's dimension filed
// under its ID (embedding 10,000 notes for real would take minutes and costs search nothing).
// The questions are the set's, each embedded for real (no vector cache). Both index kinds:
//
//	go test -run '^$' -bench RecallSearch10k -benchtime 600x ./internal/memory
func BenchmarkRecallSearch10k(b *testing.B) {
	if !embed.BuiltinAvailable() {
		b.Skip("no built-in embedder in this build")
	}
	ctx := context.Background()
	mems := readJSONL[recallMemory](b, "tuning", "memories.jsonl")
	queries := readJSONL[recallQuery](b, "tuning", "queries.jsonl")
	const n = 10000
	texts := make([]string, 0, n)
	for i := 0; len(texts) < n; i++ {
		t := mems[i%len(mems)].Text
		if round := i / len(mems); round > 0 {
			t = fmt.Sprintf("%s (site %d)", t, round)
		}
		texts = append(texts, t)
	}
	use := embed.NewUSELite()
	fill := randomSpace{id: use.ID(), dim: use.Dim()}
	st := storetest.Open(b)
	for start := 0; start < n; start += 2000 {
		part := texts[start:min(start+2000, n)]
		vecs, _ := fill.Embed(ctx, part)
		err := st.Update(ctx, func(tx *store.Tx) error {
			for i, text := range part {
				rec := record{Scope: "topic:project", Conversation: "notes", Content: text, Created: time.Unix(int64(start+i), 0).UTC(),
					Hash: contentHash(text), Embedder: use.ID(), Dim: use.Dim()}
				if _, err := putRecord(tx, rec, vecs[i], DefaultLogKeep); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	// The reference, measured in the same run: the vector side alone (579fcd7's ranking of a
	// question without identifiers) on the brute-force scan.
	vectorOnly := map[string]bool{}
	for _, sig := range []string{SignalLexical, SignalExact, SignalStem, SignalSynonyms, SignalWords, SignalTranslate} {
		vectorOnly[sig] = true
	}
	for _, v := range []struct {
		name string
		cfg  Config
	}{
		{"auto", Config{Embedder: use}}, // the default: this scope is past autoSlabFrom, so the slab
		{"chromem", Config{Embedder: use, Index: IndexChromem}},
		{"slab", Config{Embedder: use, Index: IndexSlab}},
		{"slab-vector-only", Config{Embedder: use, Index: IndexSlab, off: vectorOnly}},
	} {
		b.Run(v.name, func(b *testing.B) {
			s := New(st, v.cfg)
			mustSearch(b, s, SearchRequest{Conversation: "c", Query: "warm up the model", Scopes: []string{"project"}})
			var d []time.Duration
			i := 0
			c0 := cpuSeconds()
			for b.Loop() {
				q := queries[i%len(queries)].Query
				t0 := time.Now()
				if _, err := s.Search(ctx, SearchRequest{Conversation: "c", Query: q, Scopes: []string{"project"}, Limit: 10}); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(t0))
				i++
			}
			b.ReportMetric((cpuSeconds()-c0)*1000/float64(i), "cpu-ms/op")
			reportPercentiles(b, d)
		})
	}
}
