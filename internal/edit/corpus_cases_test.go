package edit_test

import (
	"fmt"
	"strings"
)

// The cases of the edit corpus, class by class. Each class's comment names the public failure
// reports it is modelled on; docs/edits.md lists them with their addresses.

// corpusClasses builds every class, in the order of the table.
var corpusClasses = []func(*gen){
	classExact,
	classIndentation,
	classTrailing,
	classLineEndings,
	classBlankLines,
	classStale,
	classLineNumbers,
	classJSONEscapes,
	classUnicode,
	classAmbiguous,
	classPatchContext,
	classPatchLarge,
	classPatchOverlap,
	classFinalNewline,
	classEncoding,
	classInsert,
	classNotFound,
	heldOut,
	classAlignment,
	patchVariants,
	heldOutTwo,
}

// The careful edits the classes start from, by file. Replacement lines are written in the
// file's own style (its indentation, quotes and dashes); views turn them into the model's.
var (
	// server.go (Go, tabs)
	sGet = ed{at: "rec, err := s.store.Get(r.Context(), id)", n: 6,
		repl: R(K(0, 1, 2), L("\t\t\thttp.Error(w, fmt.Sprintf(\"record %d not found\", id), http.StatusNotFound)"), K(4, 5))}
	sNew = ed{at: "return &Server{", n: 5,
		repl: R(K(0, 1, 2), L("\t\ttimeout: 10 * time.Second,"), K(4))}
	sSwitch = ed{at: "\tswitch {", n: 7,
		repl: R(K(0, 1, 2), L("\tcase n > 1000:", "\t\treturn 1000, nil"), K(5, 6))}
	sRoute = ed{at: `mux.HandleFunc("/records/delete"`, n: 1,
		repl: R(K(0), L("\tmux.HandleFunc(\"/records/export\", s.handleExport)"))}
	sWriteJSON = ed{at: "w.WriteHeader(http.StatusNoContent)", n: 6,
		repl: R(K(0, 1, 2, 3, 4), L("\tw.Header().Set(\"Content-Type\", \"application/json; charset=utf-8\")"))}
	sStruct = ed{at: "type Server struct", n: 5,
		repl: R(K(0, 1, 2, 3), L("\tmaxBody int64"), K(4))}
	sHealth = ed{at: `"/healthz"`, n: 3,
		repl: R(K(0), L("\t\tw.Header().Set(\"Cache-Control\", \"no-store\")"), K(1, 2))}
	sParse = ed{at: `if s == "" {`, n: 3,
		repl: R(K(0), L("\t\treturn defaultLimit, nil"), K(2))}
	sDelete = ed{at: "if err := s.store.Delete(r.Context(), id); err != nil {", n: 5,
		repl: R(K(0), L("\t\ts.logger.Printf(\"delete record %d: %v\", id, err)"), K(2, 3, 4))}

	// inventory.py (Python, four spaces)
	pReserve = ed{at: "if item.quantity < count:", n: 4,
		repl: R(K(0, 1, 2), L("        self._log(sku, -count)"), K(3))}
	pFind = ed{at: "def find(self", n: 5,
		repl: R(K(0), L("        return self.items.get(sku)"))}
	pLow = ed{at: "def low_stock", n: 6,
		repl: R(K(0), L("        result = [i for i in self.items.values() if i.quantity < threshold]"), K(5))}
	pReport = ed{at: "def report(self):", n: 5,
		repl: R(K(0), L(`        lines = ["SKU\tName\tQty\tTags"]`), K(2), L(`            lines.append(f"{item.sku}\t{item.name}\t{item.quantity}\t{','.join(item.tags)}")`), K(4))}
	pRestock = ed{at: "item.quantity -= count", n: 5,
		repl: R(K(0, 1, 2, 3), L("        if count <= 0:", "            raise ValueError(\"count must be positive\")"), K(4))}
	pMain = ed{at: "def main():", n: 5,
		repl: R(K(0), L(`    inv = load(sys.argv[1] if len(sys.argv) > 1 else "stock.tsv")`), K(2, 3, 4))}
	pLoad = ed{at: `with open(path, encoding="utf-8") as f:`, n: 6,
		repl: R(K(0, 1, 2, 3), L(`            sku, name, qty = line.rstrip("\r\n").split("\t")[:3]`), K(5))}
	pLabel = ed{at: "def label(self):", n: 2,
		repl: R(K(0), L(`        return f"{self.name} ({self.sku}, {self.quantity} left)"`))}

	// client.ts (TypeScript, two spaces)
	tHeaders = ed{at: "private headers()", n: 7,
		repl: R(K(0, 1, 2, 3, 4), L(`    headers["User-Agent"] = "project-client/1.0";`), K(5, 6))}
	tServerErr = ed{at: "if (res.status >= 500)", n: 4,
		repl: R(K(0), L("          throw new ApiError(res.status, `server error ${res.status} on ${url}`);"), K(2, 3))}
	tGet = ed{at: "async get(id: string)", n: 7,
		repl: R(K(0), L("    const res = await this.request(`${this.options.baseUrl}/projects/${encodeURIComponent(id)}`);"), K(2, 3, 4, 5, 6))}
	tCtor = ed{at: "private readonly retries", n: 5,
		repl: R(K(0, 1, 2), L("    this.retries = Math.max(0, options.retries ?? 2);"), K(4))}
	tCatch = ed{at: "} catch (err) {", n: 4,
		repl: R(K(0, 1), L("        this.log.warn(`attempt ${attempt + 1} of ${this.retries + 1} failed: ${String(err)}`);"), K(3))}
	tSort = ed{at: "export function sortByUpdated", n: 3,
		repl: R(K(0), L("  return [...projects].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.name.localeCompare(b.name));"), K(2))}

	// ci.yml (YAML)
	yMatrix = ed{at: `go: ["1.24", "1.25"]`, n: 1, repl: L(`        go: ["1.24", "1.25", "1.26"]`)}
	yTest   = ed{at: "- name: Test", n: 4,
		repl: R(K(0), L("        run: go test -race -count=1 ./..."), K(2, 3), L(`          GOFLAGS: "-mod=readonly"`))}
	yLint = ed{at: "- name: Lint", n: 4,
		repl: R(K(0, 1), L("          go install honnef.co/go/tools/cmd/staticcheck@2025.1"), K(3))}
	yJobs = ed{at: `CI: "true"`, n: 4, repl: R(K(0, 1, 2, 3), L("    timeout-minutes: 10"))}

	// GUIDE.md (Markdown prose with typographic punctuation and hard line breaks)
	mCommits = ed{at: "We use \u201cconventional", n: 2,
		repl: R(K(0), L("Keep the first line under 50 characters and wrap the body at 72."))}
	mReview = ed{at: "- tests that fail", n: 3,
		repl: R(K(0, 1), L("- no new dependencies without a reason,", "- a changelog entry for anything users notice."))}
	mStall = ed{at: "If a review stalls", n: 2,
		repl: R(L("If a review stalls for more than three working days, ping the channel.  "), K(1))}
	mStyle = ed{at: "- Format Go code", n: 2,
		repl: R(K(0), L("- Prefer small functions\u2026 but not tiny ones; a screenful is plenty."))}
	mIntro = ed{at: "Thanks for helping out!", n: 1,
		repl: L("Thanks for helping out! This guide explains how we work \u2014 read it before your first pull request, and again when in doubt.")}
	mCodeStyle = ed{at: "Keep the first line under 72 characters.", n: 5,
		repl: R(K(0, 1, 2, 3), L("- Run `make lint` before you push."), K(4))}
	mQuote = ed{at: "- clear names", n: 1,
		repl: L("- clear names \u2014 \u201cdata\u201d, \u201cinfo\u201d and \u201cmanager\u201d are not names,")}

	// Makefile (tabs that must stay tabs)
	mkBuild = ed{at: "build:", n: 3,
		repl: R(K(0, 1), L("\t$(GO) build -trimpath -ldflags \"$(LDFLAGS)\" -o $(BINARY) ./cmd/server"))}
	mkLint  = ed{at: "lint:", n: 3, repl: R(K(0, 1, 2), L("\tgovulncheck ./..."))}
	mkClean = ed{at: "clean -testcache", n: 1, repl: L("\t$(GO) clean -testcache -cache")}

	// ring.c (C, tabs)
	cWrite = ed{at: "while (n < len && r->used < r->size)", n: 6,
		repl: R(K(0, 1), L("\t\tif (++r->head == r->size)", "\t\t\tr->head = 0;"), K(3, 4, 5))}
	cMalloc = ed{at: "r->buf = malloc(size);", n: 5,
		repl: R(K(0, 1, 2), L("\t\terrno = ENOMEM;"), K(3, 4))}
	cRead = ed{at: "while (n < len && r->used > 0)", n: 5,
		repl: R(K(0, 1), L("\t\tif (++r->tail == r->size)", "\t\t\tr->tail = 0;"), K(3, 4))}
	cNew = ed{at: "if (size == 0) {", n: 4,
		repl: R(K(0), L("\t\terrno = EINVAL; /* a ring holds at least one byte */"), K(2, 3))}

	// Settings.cs (C#, four spaces; Windows files are CRLF with a BOM)
	csParts = ed{at: "if (parts.Length != 2)", n: 4,
		repl: R(K(0, 1), L(`                    throw new FormatException($"bad line in {path}: {line}");`), K(3))}
	csCurrency = ed{at: "public string Currency", n: 1,
		repl: L(`        public string Currency => Get("currency", "EUR").ToUpperInvariant();`)}
	csGet = ed{at: "public string Get(string key", n: 4,
		repl: R(K(0, 1), L(`            return values.TryGetValue(key, out var value) && value.Length > 0 ? value : fallback;`), K(3))}
	csLoop = ed{at: "var line = raw.Trim();", n: 5,
		repl: R(K(0), L(`                if (line.Length == 0 || line.StartsWith(";") || line.StartsWith("#"))`), K(2, 3, 4))}

	// router.rs (Rust, four spaces)
	rDispatch = ed{at: "match self.routes.get(&key)", n: 4,
		repl: L("        self.routes.get(&key).map(|handler| handler(body))")}
	rEnum    = ed{at: "    Post,", n: 3, repl: R(K(0), L("    Put,"), K(1, 2))}
	rDisplay = ed{at: `Method::Post => "POST",`, n: 2, repl: R(K(0), L(`            Method::Put => "PUT",`), K(1))}
	rTest    = ed{at: "fn dispatches_known_route", n: 5,
		repl: R(K(0, 1, 2, 3), L(`        assert_eq!(r.dispatch(&Method::Get, "/echo", "hi"), None);`), K(4))}
	rImpl = ed{at: "pub type Handler", n: 5, repl: R(K(0, 1, 2, 3), L("    // (method, path) -> handler"), K(4))}

	// views.py (Python, for large patches)
	vRoom = ed{at: `return _json(201, {"id": room.id})`, n: 5,
		repl: R(K(0, 1, 2, 3), L(`    """Bookings of rooms, by day."""`, ""), K(4))}
)

// file returns a base file, optionally under another path.
func (g *gen) file(name string) doc { return g.base[name].clone() }

// ln is the 1-based line of the only line holding at.
func ln(d doc, at string) int { return d.find(at, 0) + 1 }

// nthLine is the 1-based line of the nth line holding at.
func nthLine(d doc, at string, nth int) int { return d.find(at, nth) + 1 }

// mustOnce panics unless s occurs exactly once in d: a case meant to land must not hinge on an
// ambiguity.
func mustOnce(d doc, s string) {
	if n := strings.Count(d.text(), s); n != 1 {
		panic(fmt.Sprintf("%s: %q occurs %d times", d.path, s, n))
	}
}

// replaceCase is the common shape: one replace_string on one file with a view.
func (g *gen) replaceCase(class, id, note string, d doc, e ed, v view) {
	old, nw := v.oldNew(d, e)
	g.add(cs{class: class, id: id, note: note, files: []doc{d}, call: replaceCall(d.path, old, nw), want: []doc{d.apply(e)}})
}

// patchCase applies one patch text; want is the files after.
func (g *gen) patchCase(class, id, note string, files []doc, patch string, want ...doc) {
	g.add(cs{class: class, id: id, note: note, files: files, call: patchCall(patch), want: want})
}

func classExact(g *gen) {
	const class = "exact"
	server, py, ts, rs := g.file("server.go"), g.file("inventory.py"), g.file("client.ts"), g.file("router.rs")
	for _, x := range []struct {
		id string
		d  doc
		e  ed
	}{
		{"go-get", server, sGet}, {"go-new", server, sNew}, {"go-switch", server, sSwitch},
		{"py-reserve", py, pReserve}, {"py-low-stock", py, pLow}, {"ts-headers", ts, tHeaders},
		{"rs-dispatch", rs, rDispatch}, {"yaml-test", g.file("ci.yml"), yTest},
		{"md-review", g.file("GUIDE.md"), mReview}, {"make-build", g.file("Makefile"), mkBuild},
	} {
		old, _ := view{}.oldNew(x.d, x.e)
		mustOnce(x.d, old)
		g.replaceCase(class, "replace-"+x.id, "old_string copied exactly (control)", x.d, x.e, view{})
	}
	// Partial-line old_string: models start copying after the indentation or end mid-line.
	g.add(cs{class: class, id: "replace-mid-line", note: "old_string is part of one line (Aider#1294, cline#11439)",
		files: []doc{server}, call: replaceCall("server.go", `"/records/delete", s.handleDelete`, `"/records/remove", s.handleDelete`),
		want: []doc{server.setLine(ln(server, `"/records/delete"`)-1, "\tmux.HandleFunc(\"/records/remove\", s.handleDelete)")}})
	o1, n1 := view{}.oldNew(server, sRoute)
	o2, n2 := view{}.oldNew(ts, tServerErr)
	g.add(cs{class: class, id: "multi-two-files", note: "multi_replace_string over two files, exact",
		files: []doc{server, ts}, call: multiCall(multiEdit("server.go", o1, n1), multiEdit("client.ts", o2, n2)),
		want: []doc{server.apply(sRoute), ts.apply(tServerErr)}})
	o3, n3 := view{}.oldNew(server, sNew)
	g.add(cs{class: class, id: "multi-same-file", note: "multi_replace_string, two edits of one file",
		files: []doc{server}, call: multiCall(multiEdit("server.go", o1, n1), multiEdit("server.go", o3, n3)),
		want: []doc{server.apply(sRoute, sNew)}})
	for _, style := range []string{"git", "plain", "ab", "bare"} {
		g.patchCase(class, "unified-"+style, "unified diff, "+style+" headers, exact context",
			[]doc{server}, unified(view{}, style, part{d: server, hunks: []hunk{h(sSwitch)}}), server.apply(sSwitch))
	}
	g.patchCase(class, "unified-two-files", "git diff of two files, exact",
		[]doc{server, py}, unified(view{}, "git", part{d: server, hunks: []hunk{h(sGet), h(sSwitch)}}, part{d: py, hunks: []hunk{h(pReserve)}}),
		server.apply(sGet, sSwitch), py.apply(pReserve))
	g.patchCase(class, "envelope-update", "Codex envelope, one hunk, exact",
		[]doc{ts}, envelope(view{}, part{d: ts, hunks: []hunk{h(tHeaders)}}), ts.apply(tHeaders))
	anchored := h(pReserve)
	anchored.anchor = "def reserve(self, sku: str, count: int) -> Item:"
	g.patchCase(class, "envelope-anchor", "Codex envelope with an @@ anchor",
		[]doc{py}, envelope(view{}, part{d: py, hunks: []hunk{anchored}}), py.apply(pReserve))
	added := "package api\n\n// Version is set at build time.\nvar Version = \"dev\"\n"
	g.add(cs{class: class, id: "envelope-add-delete-move", note: "envelope adding, deleting and moving files",
		files: []doc{server, rs, ts},
		call: patchCall(envelope(view{}, part{d: parseDoc("version.go", added), op: "add", add: added},
			part{d: rs, op: "delete"}, part{d: ts, op: "move", to: "web/client.ts", hunks: []hunk{h(tGet)}})),
		want: []doc{parseDoc("version.go", added), ts.apply(tGet).as("web/client.ts")}, gone: []string{"router.rs", "client.ts"}})
	g.add(cs{class: class, id: "unified-add-delete", note: "git diff adding and deleting files",
		files: []doc{server, rs},
		call:  patchCall(unified(view{}, "git", part{d: parseDoc("version.go", added), op: "add", add: added}, part{d: rs, op: "delete"})),
		want:  []doc{parseDoc("version.go", added)}, gone: []string{"router.rs"}})
	g.add(cs{class: class, id: "insert-after-pattern", note: "insert_edit after a unique line",
		files: []doc{server},
		call:  map[string]any{"operation": "insert_edit", "path": "server.go", "after_pattern": `mux.HandleFunc("/records/delete"`, "content": "\tmux.HandleFunc(\"/records/export\", s.handleExport)\n"},
		want:  []doc{server.apply(sRoute)}})
}

func classIndentation(g *gen) {
	const class = "indentation"
	server, ring, mk := g.file("server.go"), g.file("ring.c"), g.file("Makefile")
	py, ts, rs, cs_, yml := g.file("inventory.py"), g.file("client.ts"), g.file("router.rs"), g.file("Settings.cs"), g.file("ci.yml")
	// Tab-indented files re-typed with spaces: the most common whitespace failure
	// (gemini-cli#1971, strands harness-sdk#3175, the 109-call replay in holon#2741).
	tabs := []struct {
		id string
		d  doc
		e  ed
	}{
		{"go-get", server, sGet}, {"go-new", server, sNew}, {"go-switch", server, sSwitch},
		{"go-struct", server, sStruct}, {"go-health", server, sHealth}, {"c-write", ring, cWrite},
		{"c-malloc", ring, cMalloc}, {"make-build", mk, mkBuild},
	}
	for i, x := range tabs {
		for _, w := range []int{4, 2, 8} {
			if i >= 5 && w == 8 {
				continue
			}
			g.replaceCase(class, fmt.Sprintf("%s-tabs-as-%d-spaces", x.id, w), fmt.Sprintf("tabs re-typed as %d spaces", w), x.d, x.e, view{line: tabsTo(w)})
		}
	}
	g.patchCase(class, "envelope-go-tabs-as-4", "envelope whose context has spaces for the file's tabs",
		[]doc{server}, envelope(view{line: tabsTo(4)}, part{d: server, hunks: []hunk{h(sSwitch)}}), server.apply(sSwitch))
	g.patchCase(class, "unified-c-tabs-as-4", "unified diff with spaces for tabs",
		[]doc{ring}, unified(view{line: tabsTo(4)}, "ab", part{d: ring, hunks: []hunk{h(cRead)}}), ring.apply(cRead))
	g.patchCase(class, "envelope-make-tabs-as-4", "Makefile recipe lines re-typed with spaces; they must stay tabs",
		[]doc{mk}, envelope(view{line: tabsTo(4)}, part{d: mk, hunks: []hunk{h(mkLint)}}), mk.apply(mkLint))
	// Space-indented files: another indent scale, tabs for spaces, one level off, a first line
	// copied from mid-line.
	spaces := []struct {
		id   string
		d    doc
		e    ed
		unit int
	}{
		{"py-reserve", py, pReserve, 4}, {"py-low-stock", py, pLow, 4}, {"py-report", py, pReport, 4},
		{"py-main", py, pMain, 4}, {"ts-headers", ts, tHeaders, 2}, {"ts-server-error", ts, tServerErr, 2},
		{"ts-get", ts, tGet, 2}, {"rs-dispatch", rs, rDispatch, 4}, {"cs-parts", cs_, csParts, 4}, {"yaml-test", yml, yTest, 2},
	}
	for i, x := range spaces {
		other := 2
		if x.unit == 2 {
			other = 4
		}
		unit := strings.Repeat(" ", x.unit)
		g.replaceCase(class, fmt.Sprintf("%s-scale-%d-as-%d", x.id, x.unit, other), fmt.Sprintf("%d-space indentation re-typed at %d", x.unit, other), x.d, x.e, view{line: rescale(x.unit, other)})
		if x.id != "yaml-test" {
			g.replaceCase(class, x.id+"-spaces-as-tabs", "space indentation re-typed with tabs", x.d, x.e, view{line: spacesToTabs(x.unit)})
		}
		switch i % 3 {
		case 0:
			g.replaceCase(class, x.id+"-one-level-less", "the whole snippet one level less indented", x.d, x.e, view{line: shift(unit, true)})
		case 1:
			g.replaceCase(class, x.id+"-one-level-more", "the whole snippet one level more indented", x.d, x.e, view{line: shift(unit, false)})
		default:
			g.replaceCase(class, x.id+"-first-line-bare", "copy starts after the first line's indentation", x.d, x.e, view{firstBare: true})
		}
	}
	g.patchCase(class, "envelope-py-scale-4-as-2", "envelope with two-space indentation in a four-space file",
		[]doc{py}, envelope(view{line: rescale(4, 2)}, part{d: py, hunks: []hunk{h(pRestock)}}), py.apply(pRestock))
	g.patchCase(class, "unified-ts-scale-2-as-4", "unified diff with four-space indentation in a two-space file",
		[]doc{ts}, unified(view{line: rescale(2, 4)}, "git", part{d: ts, hunks: []hunk{h(tCatch)}}), ts.apply(tCatch))
	o1, n1 := view{line: rescale(4, 2)}.oldNew(py, pLow)
	o2, n2 := view{line: tabsTo(4)}.oldNew(server, sNew)
	g.add(cs{class: class, id: "multi-two-drifts", note: "multi_replace_string, each edit drifting its own way",
		files: []doc{py, server}, call: multiCall(multiEdit("inventory.py", o1, n1), multiEdit("server.go", o2, n2)),
		want: []doc{py.apply(pLow), server.apply(sNew)}})

	// Refusals: indentation ignored would match several places, or the copy's structure is not
	// the file's (Python, where indentation is meaning).
	g.add(cs{class: class, id: "refuse-ambiguous-python-line", note: "a line that matches three places once indentation is ignored",
		files: []doc{py}, call: replaceCall("inventory.py", "  if item is None:", "  if item is None or item.quantity == 0:"),
		refuse: refuse("ambiguous", linesRe(nthLine(py, "if item is None:", 1), nthLine(py, "if item is None:", 2), nthLine(py, "if item is None:", 3)))})
	g.add(cs{class: class, id: "refuse-ambiguous-go-block", note: "a block that matches two handlers once indentation is ignored",
		files: []doc{server}, call: replaceCall("server.go", "    if err != nil {\n        http.Error(w, \"bad id\", http.StatusBadRequest)\n        return\n    }",
			"    if err != nil {\n        http.Error(w, \"bad id: \"+err.Error(), http.StatusBadRequest)\n        return\n    }"),
		refuse: refuse("ambiguous", linesRe(nthLine(server, `"bad id"`, 1)-1, nthLine(server, `"bad id"`, 2)-1))})
	flat := view{line: flatten}
	o, nw := flat.oldNew(py, pLow)
	g.add(cs{class: class, id: "refuse-python-flattened", note: "a Python block copied with no indentation at all: its structure cannot be told",
		files: []doc{py}, call: replaceCall("inventory.py", o, nw), refuse: refuse("not_found", fmt.Sprintf(`\b%d\b`, ln(py, "def low_stock")))})
	g.add(cs{class: class, id: "refuse-python-wrong-nesting", note: "the copy nests a line differently from the file",
		files: []doc{py}, call: replaceCall("inventory.py",
			"        for item in self.items.values():\n        if item.quantity < threshold:\n            result.append(item)",
			"        for item in self.items.values():\n        if item.quantity <= threshold:\n            result.append(item)"),
		refuse: refuse("not_found", fmt.Sprintf(`\b%d\b`, ln(py, "if item.quantity < threshold:")))})
	g.add(cs{class: class, id: "refuse-ambiguous-return", note: "a one-line old_string with other indentation, found four times",
		files: []doc{py}, call: replaceCall("inventory.py", "    return item", "    return item  # reserved"),
		refuse: refuse("ambiguous", linesRe(nthLine(py, "        return item", 1), nthLine(py, "        return item", 2)))})
}

func classTrailing(g *gen) {
	const class = "trailing_whitespace"
	server, py, ts, md, mk, csw := g.file("server.go"), g.file("inventory.py"), g.file("client.ts"), g.file("GUIDE.md"), g.file("Makefile"), g.file("Settings.cs")
	// trail adds whitespace to region lines of e (by index) on disk; the model's copy drops it
	// (dyad#4338, OpenHands#3882, gemini-cli#1971).
	trail := func(d doc, e ed, ws map[int]string) doc {
		s := e.start(d)
		d = d.clone()
		for i, w := range ws {
			d.lines[s+i] += w
		}
		return d
	}
	strip := view{copied: trimRight}
	for _, x := range []struct {
		id string
		d  doc
		e  ed
		ws map[int]string
	}{
		{"go-blank-tab", server, sWriteJSON, map[int]string{2: "\t", 1: " "}},
		{"go-trailing-spaces", server, sGet, map[int]string{1: "  ", 4: " "}},
		{"py-blank-indented", py, pRestock, map[int]string{2: "        "}},
		{"py-trailing", py, pReserve, map[int]string{0: " ", 2: "\t"}},
		{"ts-blank-indented", ts, tCtor, map[int]string{1: "  ", 0: " "}},
		{"make-trailing-tab", mk, mkBuild, map[int]string{0: "\t"}},
		{"cs-trailing", csw, csLoop, map[int]string{2: "    ", 4: " "}},
	} {
		d := trail(x.d, x.e, x.ws)
		g.replaceCase(class, "replace-"+x.id, "whitespace at line ends (a blank line holding indentation) dropped in the copy", d, x.e, strip)
		if x.id == "go-blank-tab" || x.id == "py-blank-indented" || x.id == "ts-blank-indented" {
			g.patchCase(class, "envelope-"+x.id, "envelope context without the file's trailing whitespace", []doc{d},
				envelope(strip, part{d: d, hunks: []hunk{h(x.e)}}), d.apply(x.e))
			g.patchCase(class, "unified-"+x.id, "unified context without the file's trailing whitespace", []doc{d},
				unified(strip, "git", part{d: d, hunks: []hunk{h(x.e)}}), d.apply(x.e))
		}
	}
	// Markdown hard line breaks are two trailing spaces: meaning, not noise.
	g.replaceCase(class, "replace-md-hard-break-kept", "a Markdown hard line break on a kept line, dropped in the copy", md, mCommits, strip)
	g.patchCase(class, "envelope-md-hard-break-kept", "envelope context drops a Markdown hard line break", []doc{md},
		envelope(strip, part{d: md, hunks: []hunk{h(mCommits)}}), md.apply(mCommits))
	g.replaceCase(class, "replace-md-hard-break-rewritten", "a rewritten line carries its own hard break", md, mStall, strip)
	// The model adds whitespace the file does not have.
	for _, x := range []struct {
		id string
		d  doc
		e  ed
	}{{"go-new", server, sNew}, {"py-low-stock", py, pLow}, {"ts-headers", ts, tHeaders}, {"yaml-test", g.file("ci.yml"), yTest}} {
		g.replaceCase(class, "replace-extra-trailing-"+x.id, "the copy has a space at line ends the file does not", x.d, x.e, view{copied: addTrailing})
	}
	crlf := trail(csw, csParts, map[int]string{1: "  "}).crlf()
	crlf.bom = true
	g.replaceCase(class, "replace-cs-crlf-trailing", "CRLF file with trailing spaces, LF copy without them", crlf, csParts, strip)
	o1, n1 := strip.oldNew(trail(server, sGet, map[int]string{1: "  "}), sGet)
	o2, n2 := strip.oldNew(trail(server, sGet, map[int]string{1: "  "}), sSwitch)
	d := trail(server, sGet, map[int]string{1: "  "})
	g.add(cs{class: class, id: "multi-go-trailing", note: "multi_replace_string over lines with trailing spaces",
		files: []doc{d}, call: multiCall(multiEdit("server.go", o1, n1), multiEdit("server.go", o2, n2)), want: []doc{d.apply(sGet, sSwitch)}})
	// Refusal: "return item" with trailing spaces in three places is the same line three times.
	pyT := py.clone()
	for i, l := range pyT.lines {
		if l == "        return item" {
			pyT.lines[i] = l + "  "
		}
	}
	g.add(cs{class: class, id: "refuse-ambiguous-trailing", note: "trailing whitespace ignored, the line occurs three times",
		files: []doc{pyT}, call: replaceCall("inventory.py", "        return item\n", "        return item  # done\n"),
		refuse: refuse("ambiguous", linesRe(nthLine(py, "        return item", 1), nthLine(py, "        return item", 2)))})
}

func classLineEndings(g *gen) {
	const class = "line_endings"
	// Windows files (gemini-cli#1497, bun#38885): the model's text has LF, the file CRLF.
	cs1 := g.file("Settings.cs").crlf()
	cs1.bom = true
	lf := view{}
	for _, x := range []struct {
		id string
		e  ed
	}{{"parts", csParts}, {"currency", csCurrency}, {"get", csGet}, {"loop", csLoop}} {
		g.replaceCase(class, "replace-cs-crlf-"+x.id, "CRLF file with a BOM, LF old_string and new_string", cs1, x.e, lf)
	}
	o1, n1 := lf.oldNew(cs1, csParts)
	o2, n2 := lf.oldNew(cs1, csGet)
	g.add(cs{class: class, id: "multi-cs-crlf", note: "multi_replace_string with LF text on a CRLF file",
		files: []doc{cs1}, call: multiCall(multiEdit("Settings.cs", o1, n1), multiEdit("Settings.cs", o2, n2)), want: []doc{cs1.apply(csParts, csGet)}})
	g.patchCase(class, "envelope-cs-crlf", "envelope with LF lines on a CRLF file", []doc{cs1},
		envelope(lf, part{d: cs1, hunks: []hunk{h(csLoop)}}), cs1.apply(csLoop))
	g.patchCase(class, "unified-cs-crlf", "git diff with LF lines on a CRLF file", []doc{cs1},
		unified(lf, "git", part{d: cs1, hunks: []hunk{h(csParts), h(csGet)}}), cs1.apply(csParts, csGet))
	propLine := "        public bool Draft => Get(\"draft\", \"false\") == \"true\";"
	g.add(cs{class: class, id: "insert-cs-crlf-after", note: "insert_edit of LF content into a CRLF file",
		files: []doc{cs1}, call: map[string]any{"operation": "insert_edit", "path": "Settings.cs", "after_pattern": "public int InvoiceDays", "content": "\n" + propLine + "\n"},
		want: []doc{cs1.apply(ed{at: "public int InvoiceDays", n: 1, repl: R(K(0), L("", propLine))})}})
	g.add(cs{class: class, id: "insert-cs-crlf-line", note: "insert_edit at a line number, LF content, CRLF file",
		files: []doc{cs1}, call: map[string]any{"operation": "insert_edit", "path": "Settings.cs", "line": ln(cs1, "public string Currency"), "content": "        // Values are case-sensitive.\n"},
		want: []doc{cs1.apply(ed{at: "public string Currency", n: 1, repl: R(L("        // Values are case-sensitive."), K(0))})}})
	server := g.file("server.go")
	sc := server.crlf()
	g.replaceCase(class, "replace-go-crlf", "Go file checked out with CRLF, LF old_string", sc, sGet, lf)
	g.patchCase(class, "envelope-go-crlf", "envelope on a CRLF Go file", []doc{sc}, envelope(lf, part{d: sc, hunks: []hunk{h(sSwitch)}}), sc.apply(sSwitch))
	g.patchCase(class, "unified-go-crlf", "unified diff on a CRLF Go file", []doc{sc}, unified(lf, "ab", part{d: sc, hunks: []hunk{h(sRoute)}}), sc.apply(sRoute))
	md := g.file("GUIDE.md").crlf()
	g.replaceCase(class, "replace-md-crlf", "CRLF Markdown file", md, mReview, lf)
	g.replaceCase(class, "replace-md-crlf-hard-break", "CRLF Markdown with a hard line break on the kept line", md, mCommits, lf)
	// The model sends CRLF (a Windows client) to an LF file.
	py, ts := g.file("inventory.py"), g.file("client.ts")
	crlf := view{sep: "\r\n"}
	g.replaceCase(class, "replace-go-model-crlf", "CRLF old_string and new_string on an LF file", server, sNew, crlf)
	g.replaceCase(class, "replace-py-model-crlf", "CRLF old_string and new_string on an LF file", py, pLow, crlf)
	g.replaceCase(class, "replace-ts-model-crlf", "CRLF old_string and new_string on an LF file", ts, tHeaders, crlf)
	g.patchCase(class, "unified-model-crlf", "a unified diff with CRLF lines on an LF file", []doc{server},
		unified(crlf, "git", part{d: server, hunks: []hunk{h(sSwitch)}}), server.apply(sSwitch))
	g.patchCase(class, "envelope-model-crlf", "an envelope with CRLF lines on an LF file", []doc{py},
		envelope(crlf, part{d: py, hunks: []hunk{h(pReserve)}}), py.apply(pReserve))
	// Mixed files: some lines CRLF (a Windows contributor's paste). Lines the edit keeps keep
	// theirs.
	mixed := server.clone()
	for i := ln(server, "func (s *Server) handleGet"); i < ln(server, "func (s *Server) handleDelete"); i++ {
		mixed.eols[i-1] = "\r\n"
	}
	g.replaceCase(class, "replace-mixed-crlf-region", "a CRLF stretch inside an LF file: kept lines keep CRLF", mixed, ed{at: sGet.at, n: 6, repl: R(K(0, 1, 2, 3, 4, 5))}.with(3, "\t\t\thttp.Error(w, \"record not found\", http.StatusNotFound)"), lf)
	g.replaceCase(class, "replace-mixed-lf-region", "an edit in the LF part of a mixed file leaves the CRLF lines alone", mixed, sSwitch, lf)
	noEOL := cs1.noFinalNewline()
	g.replaceCase(class, "replace-cs-crlf-no-final-newline", "CRLF file without a final newline", noEOL, csCurrency, lf)
	// Refusal: a CRLF file where the LF copy matches twice.
	g.add(cs{class: class, id: "refuse-crlf-ambiguous", note: "line endings ignored, the text occurs twice",
		files: []doc{sc}, call: replaceCall("server.go", "\t\thttp.Error(w, \"internal error\", http.StatusInternalServerError)\n\t\treturn\n", "\t\thttp.Error(w, \"internal\", http.StatusInternalServerError)\n\t\treturn\n"),
		refuse: refuse("ambiguous", linesRe(nthLine(server, `"internal error"`, 1), nthLine(server, `"internal error"`, 2)))})
}

// with returns e with region line i rewritten to s (the rest kept).
func (e ed) with(i int, s string) ed {
	out := ed{at: e.at, nth: e.nth, n: e.n}
	for _, r := range e.repl {
		if r.k == i {
			out.repl = append(out.repl, rl{k: -1, s: s})
			continue
		}
		out.repl = append(out.repl, r)
	}
	return out
}

func classBlankLines(g *gen) {
	const class = "blank_lines"
	server, py, ts, md, yml, rs, views := g.file("server.go"), g.file("inventory.py"), g.file("client.ts"), g.file("GUIDE.md"), g.file("ci.yml"), g.file("router.rs"), g.file("views.py")
	// A copy that loses or adds blank lines (Aider edit-errors docs, dyad#4338, the replay's
	// "hunk 越长越易错": one wrong line anywhere breaks the block).
	drop := view{dropBlank: true}
	for _, x := range []struct {
		id string
		d  doc
		e  ed
	}{
		{"go-write-json", server, sWriteJSON}, {"py-restock", py, pRestock}, {"ts-ctor", ts, tCtor},
		{"md-code-style", md, mCodeStyle}, {"yaml-jobs", yml, yJobs}, {"rs-impl", rs, rImpl},
	} {
		g.replaceCase(class, "replace-missing-"+x.id, "old_string and new_string leave out the file's blank lines", x.d, x.e, drop)
		if x.id == "go-write-json" || x.id == "py-restock" || x.id == "md-code-style" {
			g.patchCase(class, "envelope-missing-"+x.id, "envelope context leaves out a blank line", []doc{x.d},
				envelope(drop, part{d: x.d, hunks: []hunk{h(x.e)}}), x.d.apply(x.e))
		}
		if x.id == "go-write-json" || x.id == "ts-ctor" {
			g.patchCase(class, "unified-missing-"+x.id, "unified context leaves out a blank line", []doc{x.d},
				unified(drop, "git", part{d: x.d, hunks: []hunk{h(x.e)}}), x.d.apply(x.e))
		}
	}
	for _, x := range []struct {
		id    string
		d     doc
		e     ed
		after int
	}{
		{"go-get", server, sGet, 1}, {"py-reserve", py, pReserve, 2}, {"ts-headers", ts, tHeaders, 2}, {"rs-test", rs, rTest, 3},
	} {
		g.replaceCase(class, "replace-extra-"+x.id, "old_string and new_string have a blank line the file does not", x.d, x.e, view{extraBlank: x.after})
	}
	g.patchCase(class, "envelope-extra-py-reserve", "envelope context with a blank line the file does not have", []doc{py},
		envelope(view{extraBlank: 2}, part{d: py, hunks: []hunk{h(pReserve)}}), py.apply(pReserve))
	// PEP 8's two blank lines between classes, copied as one.
	one := vRoom
	o, nw := view{}.oldNew(views, one)
	o = strings.Replace(o, "\n\n\n", "\n\n", 1)
	nw = strings.Replace(nw, "\n\n\n", "\n\n", 1)
	g.add(cs{class: class, id: "replace-two-blank-as-one", note: "two blank lines between classes copied as one",
		files: []doc{views}, call: replaceCall("views.py", o, nw), want: []doc{views.apply(vRoom)}})
	o, nw = drop.oldNew(views, vRoom)
	g.add(cs{class: class, id: "replace-two-blank-as-none", note: "two blank lines between classes left out",
		files: []doc{views}, call: replaceCall("views.py", o, nw), want: []doc{views.apply(vRoom)}})
	// A new function added between two others, the model's old_string without the separator
	// but its new_string with blank lines of its own: one blank line each side, not two.
	newFunc := ed{at: "w.WriteHeader(http.StatusNoContent)", n: 5,
		repl: R(K(0, 1, 2), L("// handleExport streams every record as JSON lines.", "func (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {", "\tw.WriteHeader(http.StatusNotImplemented)", "}", ""), K(3, 4))}
	o = "\tw.WriteHeader(http.StatusNoContent)\n}\n// writeJSON encodes v as the response body.\nfunc writeJSON(w http.ResponseWriter, v any) {"
	nw = "\tw.WriteHeader(http.StatusNoContent)\n}\n\n// handleExport streams every record as JSON lines.\nfunc (s *Server) handleExport(w http.ResponseWriter, r *http.Request) {\n\tw.WriteHeader(http.StatusNotImplemented)\n}\n\n// writeJSON encodes v as the response body.\nfunc writeJSON(w http.ResponseWriter, v any) {"
	g.add(cs{class: class, id: "replace-new-function-between", note: "old_string without the blank separator, new_string with its own blank lines",
		files: []doc{server}, call: replaceCall("server.go", o, nw), want: []doc{server.apply(newFunc)}})
	// Deleting a function whose separating blank line the copy left out: the blank goes too.
	delWant := server.apply(ed{at: "w.WriteHeader(http.StatusNoContent)", n: 11, repl: K(0, 1, 10)})
	o = "}\n// writeJSON encodes v as the response body.\nfunc writeJSON(w http.ResponseWriter, v any) {\n\tw.Header().Set(\"Content-Type\", \"application/json\")\n\tif err := json.NewEncoder(w).Encode(v); err != nil {\n\t\tlog.Printf(\"encode: %v\", err)\n\t}\n}\n"
	nw = "}\n"
	g.add(cs{class: class, id: "replace-delete-function", note: "deleting a function, old_string without the blank line before it",
		files: []doc{server}, call: replaceCall("server.go", o, nw), want: []doc{delWant}})
	// Refusal: without its blank line the text matches both views.
	g.add(cs{class: class, id: "refuse-ambiguous-without-blank", note: "blank lines ignored, the text matches both classes",
		files: []doc{views}, call: replaceCall("views.py", "        self.store = store\n    def list(self, request):", "        self.store = store\n        self.cache = {}\n\n    def list(self, request):"),
		refuse: refuse("ambiguous", linesRe(nthLine(views, "self.store = store", 1), nthLine(views, "self.store = store", 2)))})
}
