package edit_test

import (
	"bytes"
	"fmt"
	"strings"
)

func classStale(g *gen) {
	const class = "stale"
	server, py, ts := g.file("server.go"), g.file("inventory.py"), g.file("client.ts")
	// (a) The file changed on disk after the model read it, away from the edit: refused as
	// stale, naming where old_string is now.
	limit := server.setLine(ln(server, "case n > 500:")-1, "\tcase n > 1000:").setLine(ln(server, "return 500, nil")-1, "\t\treturn 1000, nil")
	old, nw := view{}.oldNew(server, sGet)
	g.add(cs{class: class, id: "changed-elsewhere-replace", note: "someone changed another function after the read; old_string still matches",
		files: []doc{server}, disk: []doc{limit}, call: replaceCall("server.go", old, nw), refuse: refuse("stale", lineRe(ln(server, sGet.at)))})
	g.add(cs{class: class, id: "changed-elsewhere-patch", note: "file changed after the read; the hunk still applies",
		files: []doc{server}, disk: []doc{limit}, call: patchCall(unified(view{}, "git", part{d: server, hunks: []hunk{h(sRoute)}})),
		refuse: refuse("stale", lineRe(ln(server, sRoute.at)-3))})
	g.add(cs{class: class, id: "changed-elsewhere-insert", note: "file changed after the read; insert_edit after a pattern",
		files: []doc{server}, disk: []doc{limit}, call: map[string]any{"operation": "insert_edit", "path": "server.go", "after_pattern": `mux.HandleFunc("/records/delete"`, "content": "\tmux.HandleFunc(\"/records/export\", s.handleExport)\n"},
		refuse: refuse("stale", lineRe(ln(server, sRoute.at)))})
	o2, n2 := view{}.oldNew(server, sNew)
	g.add(cs{class: class, id: "changed-elsewhere-multi", note: "file changed after the read; multi_replace_string",
		files: []doc{server}, disk: []doc{limit}, call: multiCall(multiEdit("server.go", old, nw), multiEdit("server.go", o2, n2)),
		refuse: refuse("stale", lineRe(ln(server, sGet.at)))})
	// (b) The file changed on disk inside the text the edit copies.
	inside := server.setLine(ln(server, `"not found", http.StatusNotFound`)-1, "\t\t\thttp.Error(w, \"no such record\", http.StatusNotFound)")
	g.add(cs{class: class, id: "changed-inside-replace", note: "someone changed a line old_string copies, after the read",
		files: []doc{server}, disk: []doc{inside}, call: replaceCall("server.go", old, nw), refuse: refuse("stale", lineRe(ln(server, `"not found", http.StatusNotFound`)))})
	pyIn := py.setLine(ln(py, "raise OutOfStock(")-1, "            raise OutOfStock(sku, item.quantity)")
	o3, n3 := view{}.oldNew(py, pReserve)
	g.add(cs{class: class, id: "changed-inside-replace-py", note: "a teammate's change inside the copied block, after the read",
		files: []doc{py}, disk: []doc{pyIn}, call: replaceCall("inventory.py", o3, n3), refuse: refuse("stale", lineRe(ln(py, "raise OutOfStock(")))})
	tsIn := ts.setLine(ln(ts, "headers[\"Authorization\"]")-1, "      headers[\"Authorization\"] = `Token ${this.options.token}`;")
	g.add(cs{class: class, id: "changed-inside-envelope", note: "file changed inside the hunk's context after the read",
		files: []doc{ts}, disk: []doc{tsIn}, call: patchCall(envelope(view{}, part{d: ts, hunks: []hunk{h(tHeaders)}})),
		refuse: refuse("stale", lineRe(ln(ts, "headers[\"Authorization\"]")))})
	// (c) The model's picture is older than its last read: it edits from memory (the replay's
	// "target state leak" and "self-edit amnesia", holon#2741).
	for _, x := range []struct {
		id   string
		cur  doc
		orig doc
		e    ed
		line int
	}{
		{"memory-go", inside, server, sGet, ln(server, `"not found", http.StatusNotFound`)},
		{"memory-py", pyIn, py, pReserve, ln(py, "raise OutOfStock(")},
		{"memory-ts", tsIn, ts, tHeaders, ln(ts, "headers[\"Authorization\"]")},
	} {
		o, n := view{}.oldNew(x.orig, x.e)
		g.add(cs{class: class, id: x.id + "-replace", note: "old_string from an earlier version of the file",
			files: []doc{x.cur}, call: replaceCall(x.cur.path, o, n), refuse: refuse("not_found", lineRe(x.line))})
	}
	g.add(cs{class: class, id: "memory-unified", note: "a unified diff written against an earlier version",
		files: []doc{pyIn}, call: patchCall(unified(view{}, "git", part{d: py, hunks: []hunk{h(ed{at: "raise OutOfStock(", n: 1, repl: L("            raise OutOfStock(f\"only {item.quantity} of {sku} left, {count} asked\")")})}})),
		refuse: refuse("not_found", lineRe(ln(py, "raise OutOfStock(")))})
	g.add(cs{class: class, id: "memory-envelope", note: "an envelope removing a line that is no longer there",
		files: []doc{inside}, call: patchCall(envelope(view{}, part{d: server, hunks: []hunk{h(sGet)}})),
		refuse: refuse("not_found", lineRe(ln(server, `"not found", http.StatusNotFound`)))})
	g.add(cs{class: class, id: "memory-multi-second", note: "multi_replace_string whose second edit is from memory: nothing is written",
		files: []doc{inside}, call: multiCall(multiEdit("server.go", o2, n2), multiEdit("server.go", old, nw)),
		refuse: refuse("not_found", lineRe(ln(server, `"not found", http.StatusNotFound`)), `edit 2|edits\[1\]`)})
	// Self-edit amnesia: the model added a header line minutes ago, and now patches as if the
	// block had one more closing brace.
	done := ts.apply(tHeaders)
	amnesia := "*** Begin Patch\n*** Update File: client.ts\n@@\n     if (this.options.token) {\n       headers[\"Authorization\"] = `Bearer ${this.options.token}`;\n     }\n     headers[\"User-Agent\"] = \"project-client/1.0\";\n+    headers[\"X-Request-Id\"] = crypto.randomUUID();\n     }\n     return headers;\n*** End Patch\n"
	g.add(cs{class: class, id: "self-edit-amnesia", note: "a patch on its own earlier edit, with an extra closing brace and another indentation",
		files: []doc{done}, call: patchCall(amnesia), refuse: refuse("not_found", lineRe(ln(done, "return headers;")))})
	rs := g.file("router.rs")
	cur := rs.apply(rDispatch)
	o, n := view{}.oldNew(rs, ed{at: "None => None,", n: 2, repl: R(L("            None => Some(\"404\".to_string()),"), K(1))})
	g.add(cs{class: class, id: "memory-rs-removed-line", note: "old_string holds a line the model itself removed earlier",
		files: []doc{cur}, call: replaceCall("router.rs", o, n), refuse: refuse("not_found", `\blines? \d+`)})
}

func classLineNumbers(g *gen) {
	const class = "line_numbers"
	server, py, ts, yml, md, ring := g.file("server.go"), g.file("inventory.py"), g.file("client.ts"), g.file("ci.yml"), g.file("GUIDE.md"), g.file("ring.c")
	// read_file with line_numbers prints "%*d\t" (width 4 for a whole file, the width of the
	// last line's number for a range); models copy it into old_string (Zoo-Code#716,
	// opencode#27282, opencode PR 2884).
	full := func(d doc) []map[string]any {
		return []map[string]any{{"path": d.path, "line_numbers": true}}
	}
	for _, x := range []struct {
		id  string
		d   doc
		e   ed
		new string
	}{
		{"go-get", server, sGet, "none"}, {"py-reserve", py, pReserve, "kept"}, {"ts-headers", ts, tHeaders, "all"},
		{"yaml-test", yml, yTest, "none"}, {"md-review", md, mReview, "kept"}, {"c-write", ring, cWrite, "none"},
		{"py-report", py, pReport, "all"},
	} {
		v := view{num: &numbering{width: 4, new: x.new}}
		old, nw := v.oldNew(x.d, x.e)
		g.add(cs{class: class, id: "full-read-" + x.id + "-new-" + x.new, note: "old_string copied with read_file's line numbers (new_string: " + x.new + ")",
			files: []doc{x.d}, reads: full(x.d), call: replaceCall(x.d.path, old, nw), want: []doc{x.d.apply(x.e)}})
	}
	vk := view{num: &numbering{width: 4, new: "kept"}}
	o1, n1 := vk.oldNew(server, sNew)
	o2, n2 := view{num: &numbering{width: 4, new: "none"}}.oldNew(server, sSwitch)
	g.add(cs{class: class, id: "full-read-multi", note: "multi_replace_string with numbered old_strings",
		files: []doc{server}, reads: full(server), call: multiCall(multiEdit("server.go", o1, n1), multiEdit("server.go", o2, n2)), want: []doc{server.apply(sNew, sSwitch)}})
	store, views := g.file("store.go"), g.file("views.py")
	ranged := []struct {
		id         string
		d          doc
		e          ed
		start, end int
		new        string
	}{
		{"go-switch", server, sSwitch, 85, 100, "none"},
		{"py-low-stock", py, pLow, 50, 60, "kept"},
		{"go-store", store, ed{at: "if o.Total <= 0 {", n: 3, repl: R(K(0), L("\t\treturn fmt.Errorf(\"place order: total must be positive, got %d cents\", o.Total)"), K(2))}, 150, 180, "kept"},
		{"py-views", views, ed{at: "if end <= start:", n: 2, repl: R(K(0), L(`            return _json(400, {"error": "end must be after start", "start": data["start"]})`))}, 70, 99, "none"},
	}
	for _, x := range ranged {
		v := view{num: &numbering{width: len(fmt.Sprint(x.end)), new: x.new}}
		old, nw := v.oldNew(x.d, x.e)
		g.add(cs{class: class, id: fmt.Sprintf("ranged-read-%s-%d-%d", x.id, x.start, x.end), note: "numbers from a ranged read (narrower padding)",
			files: []doc{x.d}, reads: []map[string]any{{"path": x.d.path, "line_numbers": true, "start_line": x.start, "end_line": x.end}},
			call: replaceCall(x.d.path, old, nw), want: []doc{x.d.apply(x.e)}})
	}
	for _, x := range []struct {
		id string
		d  doc
		e  ed
	}{{"ts-headers", ts, tHeaders}, {"c-read", ring, cRead}} {
		v := view{num: &numbering{width: 6, arrow: true, new: "none"}}
		old, nw := v.oldNew(x.d, x.e)
		g.add(cs{class: class, id: "arrow-" + x.id, note: "numbers in the \"     12→\" form some clients print",
			files: []doc{x.d}, call: replaceCall(x.d.path, old, nw), want: []doc{x.d.apply(x.e)}})
	}
	v := view{num: &numbering{width: 4, new: "kept"}, line: tabsTo(4)}
	old, nw := v.oldNew(server, sNew)
	g.add(cs{class: class, id: "full-read-go-spaces", note: "numbered and re-indented with spaces",
		files: []doc{server}, reads: full(server), call: replaceCall("server.go", old, nw), want: []doc{server.apply(sNew)}})
	// The numbers tell two identical blocks apart.
	second := ed{at: `http.Error(w, "bad id", http.StatusBadRequest)`, nth: 2, n: 1, repl: L("\t\thttp.Error(w, \"bad id: \"+err.Error(), http.StatusBadRequest)")}
	dup := ed{at: `http.Error(w, "bad id", http.StatusBadRequest)`, nth: 2, n: 3, repl: R(L("\t\thttp.Error(w, \"bad id: \"+err.Error(), http.StatusBadRequest)"), K(1, 2))}
	old, nw = view{num: &numbering{width: 4, new: "kept"}}.oldNew(server, dup)
	g.add(cs{class: class, id: "numbers-pick-the-second", note: "the block occurs twice; the copied numbers name the second",
		files: []doc{server}, reads: full(server), call: replaceCall("server.go", old, nw), want: []doc{server.apply(second)}})
	stale := strings.ReplaceAll(old, fmt.Sprintf("%4d", nthLine(server, `"bad id"`, 2)), "  12")
	stale = strings.ReplaceAll(stale, fmt.Sprintf("%4d", nthLine(server, `"bad id"`, 2)+1), "  13")
	stale = strings.ReplaceAll(stale, fmt.Sprintf("%4d", nthLine(server, `"bad id"`, 2)+2), "  14")
	g.add(cs{class: class, id: "refuse-numbers-name-neither", note: "numbered block found twice, its numbers name neither place",
		files: []doc{server}, reads: full(server), call: replaceCall("server.go", stale, "\t\thttp.Error(w, \"bad\", http.StatusBadRequest)\n\t\treturn\n\t}"),
		refuse: refuse("ambiguous", linesRe(nthLine(server, `"bad id"`, 1), nthLine(server, `"bad id"`, 2)))})
	memory := py.setLine(ln(py, "raise OutOfStock(")-1, "            raise OutOfStock(sku, item.quantity)")
	old, nw = view{num: &numbering{width: 4, new: "none"}}.oldNew(py, pReserve)
	g.add(cs{class: class, id: "refuse-numbered-stale-line", note: "numbered old_string with a line that has changed",
		files: []doc{memory}, reads: full(memory), call: replaceCall("inventory.py", old, nw), refuse: refuse("not_found", lineRe(ln(py, "raise OutOfStock(")))})
}

func classJSONEscapes(g *gen) {
	const class = "json_escapes"
	server, py, ts, csf, yml, rs := g.file("server.go"), g.file("inventory.py"), g.file("client.ts"), g.file("Settings.cs"), g.file("ci.yml"), g.file("router.rs")
	// Strings escaped once too often: "\n" arrives as backslash-n, "\"" as backslash-quote
	// (gemini-cli "Ensure you're not escaping content incorrectly", #4497; the reverse danger,
	// code whose literals hold \n, #26209).
	esc := view{whole: jsonEscaped}
	for _, x := range []struct {
		id string
		d  doc
		e  ed
	}{
		{"go-get", server, sGet}, {"py-report-literal-escapes", py, pReport}, {"py-main-unicode-escape", py, pMain},
		{"ts-headers", ts, tHeaders}, {"cs-parts", csf, csParts}, {"yaml-test", yml, yTest}, {"go-health", server, sHealth},
		{"py-load-literal-escapes", py, pLoad}, {"rs-test", rs, rTest},
	} {
		g.replaceCase(class, "over-escaped-"+x.id, "old_string and new_string JSON-escaped one time too many", x.d, x.e, esc)
	}
	o1, n1 := esc.oldNew(server, sRoute)
	o2, n2 := esc.oldNew(server, sNew)
	g.add(cs{class: class, id: "over-escaped-multi", note: "multi_replace_string with over-escaped edits",
		files: []doc{server}, call: multiCall(multiEdit("server.go", o1, n1), multiEdit("server.go", o2, n2)), want: []doc{server.apply(sRoute, sNew)}})
	g.patchCase(class, "over-escaped-envelope", "a whole envelope sent as one over-escaped line", []doc{py},
		envelope(esc, part{d: py, hunks: []hunk{h(pReserve)}}), py.apply(pReserve))
	g.patchCase(class, "over-escaped-unified", "a whole unified diff sent as one over-escaped line", []doc{server},
		unified(esc, "git", part{d: server, hunks: []hunk{h(sSwitch)}}), server.apply(sSwitch))
	quotes := view{whole: quotesEscaped}
	for _, x := range []struct {
		id string
		d  doc
		e  ed
	}{{"go-route", server, sRoute}, {"cs-currency", csf, csCurrency}, {"yaml-matrix", yml, yMatrix}, {"ts-server-error", ts, tServerErr}} {
		g.replaceCase(class, "quotes-escaped-"+x.id, "only the quotes escaped (real line breaks)", x.d, x.e, quotes)
	}
	o, _ := quotes.oldNew(server, sRoute)
	_, n := view{}.oldNew(server, sRoute)
	g.add(cs{class: class, id: "quotes-escaped-old-only", note: "old_string has escaped quotes, new_string plain ones",
		files: []doc{server}, call: replaceCall("server.go", o, n), want: []doc{server.apply(sRoute)}})
	memory := server.setLine(ln(server, `"not found", http.StatusNotFound`)-1, "\t\t\thttp.Error(w, \"no such record\", http.StatusNotFound)")
	o, n = esc.oldNew(server, sGet)
	g.add(cs{class: class, id: "refuse-over-escaped-stale", note: "over-escaped old_string whose text is not in the file",
		files: []doc{memory}, call: replaceCall("server.go", o, n), refuse: refuse("not_found", lineRe(ln(server, `"not found", http.StatusNotFound`)))})
	g.add(cs{class: class, id: "refuse-over-escaped-ambiguous", note: "over-escaped old_string that occurs twice",
		files: []doc{server}, call: replaceCall("server.go", `\tif err != nil {\n\t\thttp.Error(w, \"bad id\", http.StatusBadRequest)\n\t\treturn\n\t}`, `\tif err != nil {\n\t\thttp.Error(w, \"bad\", http.StatusBadRequest)\n\t\treturn\n\t}`),
		refuse: refuse("ambiguous", linesRe(nthLine(server, `"bad id"`, 1)-1, nthLine(server, `"bad id"`, 2)-1))})
}

func classUnicode(g *gen) {
	const class = "unicode_punct"
	server, ts, csf, yml, py, md := g.file("server.go"), g.file("client.ts"), g.file("Settings.cs"), g.file("ci.yml"), g.file("inventory.py"), g.file("GUIDE.md")
	// Typographic quotes where the code has ASCII, and ASCII where the prose has typographic
	// punctuation (opencode/Claude Code unicode normalisation reports; the ladder's own golden).
	curly := view{line: curlyQuotes}
	for _, x := range []struct {
		id string
		d  doc
		e  ed
	}{{"go-get", server, sGet}, {"ts-headers", ts, tHeaders}, {"cs-parts", csf, csParts}, {"go-route", server, sRoute}, {"yaml-test", yml, yTest}, {"py-main", py, pMain}} {
		g.replaceCase(class, "curly-in-code-"+x.id, "typographic quotes for the code's ASCII ones", x.d, x.e, curly)
	}
	g.patchCase(class, "curly-in-code-envelope", "envelope with typographic quotes in its context", []doc{server},
		envelope(curly, part{d: server, hunks: []hunk{h(sHealth)}}), server.apply(sHealth))
	plain := view{line: plainPunct}
	for _, x := range []struct {
		id string
		e  ed
	}{{"commits", mCommits}, {"review", mReview}, {"style", mStyle}, {"intro", mIntro}, {"quote", mQuote}} {
		g.replaceCase(class, "ascii-in-prose-"+x.id, "ASCII quotes, dashes and dots for the prose's typographic ones", md, x.e, plain)
	}
	g.patchCase(class, "ascii-in-prose-envelope", "envelope with ASCII punctuation on typographic prose", []doc{md},
		envelope(plain, part{d: md, hunks: []hunk{h(mReview)}}), md.apply(mReview))
	g.patchCase(class, "ascii-in-prose-unified", "unified diff with ASCII punctuation on typographic prose", []doc{md},
		unified(plain, "ab", part{d: md, hunks: []hunk{h(mIntro)}}), md.apply(mIntro))
	nbsp := view{copied: func(s string) string { return strings.Replace(s, ": ", ":\u00a0", 1) }}
	g.replaceCase(class, "nbsp-in-copy", "a no-break space from a rendered page where the file has a space", server, sNew, nbsp)
	notes := parseDoc("NOTES.md", "# Notes\n\n## Before a release\n\n- Don\u2019t force-push to \u201cmain\u201d.\n- Tag the commit.\n\n## After a release\n\n- Don\u2019t force-push to \u201cmain\u201d.\n- Announce it.\n")
	g.add(cs{class: class, id: "refuse-ambiguous-punct", note: "ASCII copy of a typographic line that occurs twice",
		files: []doc{notes}, call: replaceCall("NOTES.md", "- Don't force-push to \"main\".", "- Never force-push to \"main\"."),
		refuse: refuse("ambiguous", linesRe(5, 10))})
}

func classAmbiguous(g *gen) {
	const class = "ambiguous"
	server, py, yml, store := g.file("server.go"), g.file("inventory.py"), g.file("ci.yml"), g.file("store.go")
	// A match in two places is never resolved by guessing (the Cortex apply_patch reports of
	// hunks applied at the wrong place; the issue's own wrong write).
	bad1, bad2 := nthLine(server, `"bad id"`, 1), nthLine(server, `"bad id"`, 2)
	badOld := `http.Error(w, "bad id", http.StatusBadRequest)`
	badNew := `http.Error(w, "bad id: "+err.Error(), http.StatusBadRequest)`
	both := server.setLine(bad1-1, "\t\t"+badNew).setLine(bad2-1, "\t\t"+badNew)
	g.add(cs{class: class, id: "refuse-replace-twice", note: "old_string occurs twice, no replace_all",
		files: []doc{server}, call: replaceCall("server.go", badOld, badNew), refuse: refuse("ambiguous", linesRe(bad1, bad2))})
	g.add(cs{class: class, id: "expected-replacements-2", note: "expected_replacements says two",
		files: []doc{server}, call: with(replaceCall("server.go", badOld, badNew), "expected_replacements", 2), want: []doc{both}})
	g.add(cs{class: class, id: "refuse-expected-replacements-3", note: "expected_replacements says three, the file has two",
		files: []doc{server}, call: with(replaceCall("server.go", badOld, badNew), "expected_replacements", 3), refuse: refuse("count_mismatch|ambiguous", linesRe(bad1, bad2))})
	g.add(cs{class: class, id: "replace-all", note: "replace_all over both",
		files: []doc{server}, call: with(replaceCall("server.go", badOld, badNew), "replace_all", true), want: []doc{both}})
	o, n := view{}.oldNew(server, sNew)
	g.add(cs{class: class, id: "refuse-multi-one-ambiguous", note: "multi_replace_string with one ambiguous edit: nothing is written",
		files: []doc{server}, call: multiCall(multiEdit("server.go", o, n), multiEdit("server.go", badOld, badNew)), refuse: refuse("ambiguous", linesRe(bad1, bad2))})
	g.add(cs{class: class, id: "refuse-tolerant-twice", note: "indentation ignored, the block matches two handlers",
		files: []doc{server}, call: replaceCall("server.go", "    http.Error(w, \"internal error\", http.StatusInternalServerError)\n    return", "    http.Error(w, \"internal\", http.StatusInternalServerError)\n    return"),
		refuse: refuse("ambiguous", linesRe(nthLine(server, `"internal error"`, 1), nthLine(server, `"internal error"`, 2)))})
	g.add(cs{class: class, id: "refuse-tolerant-replace-all", note: "replace_all on text found only ignoring indentation",
		files: []doc{server}, call: with(replaceCall("server.go", "    http.Error(w, \"internal error\", http.StatusInternalServerError)", "    http.Error(w, \"internal\", http.StatusInternalServerError)"), "replace_all", true),
		refuse: refuse("ambiguous", linesRe(nthLine(server, `"internal error"`, 1), nthLine(server, `"internal error"`, 2)))})
	g.add(cs{class: class, id: "refuse-insert-pattern-twice", note: "insert_edit after a pattern on two lines",
		files: []doc{server}, call: map[string]any{"operation": "insert_edit", "path": "server.go", "after_pattern": "http.StatusBadRequest)", "content": "\t\ts.logger.Printf(\"bad id\")\n"},
		refuse: refuse("ambiguous", linesRe(bad1, bad2))})
	find1, find2 := nthLine(py, "item = self.find(sku)", 1), nthLine(py, "item = self.find(sku)", 2)
	found := py.setLine(find1-1, "        item = self._lookup(sku)").setLine(find2-1, "        item = self._lookup(sku)")
	g.add(cs{class: class, id: "expected-replacements-py", note: "expected_replacements 2 in Python",
		files: []doc{py}, call: with(replaceCall("inventory.py", "item = self.find(sku)", "item = self._lookup(sku)"), "expected_replacements", 2), want: []doc{found}})
	g.add(cs{class: class, id: "refuse-py-three-places", note: "a line in three methods",
		files: []doc{py}, call: replaceCall("inventory.py", "        if item is None:\n", "        if not item:\n"),
		refuse: refuse("ambiguous", linesRe(nthLine(py, "if item is None:", 1), nthLine(py, "if item is None:", 2), nthLine(py, "if item is None:", 3)))})
	runs := yml.setLine(nthLine(yml, "runs-on: ubuntu-latest", 1)-1, "    runs-on: ubuntu-24.04").setLine(nthLine(yml, "runs-on: ubuntu-latest", 2)-1, "    runs-on: ubuntu-24.04")
	g.add(cs{class: class, id: "refuse-yaml-twice", note: "a YAML key in two jobs",
		files: []doc{yml}, call: replaceCall("ci.yml", "    runs-on: ubuntu-latest", "    runs-on: ubuntu-24.04"),
		refuse: refuse("ambiguous", linesRe(nthLine(yml, "runs-on", 1), nthLine(yml, "runs-on", 2)))})
	g.add(cs{class: class, id: "yaml-replace-all", note: "replace_all on a YAML key in two jobs",
		files: []doc{yml}, call: with(replaceCall("ci.yml", "    runs-on: ubuntu-latest", "    runs-on: ubuntu-24.04"), "replace_all", true), want: []doc{runs}})
	ctxAll := store.clone()
	for i, l := range ctxAll.lines {
		if l == "\tctx, cancel := s.ctx(ctx)" {
			ctxAll.lines[i] = "\tctx, cancel := s.ctx(ctx) // every query has a deadline"
		}
	}
	g.add(cs{class: class, id: "replace-all-many", note: "replace_all over ten places",
		files: []doc{store}, call: with(replaceCall("store.go", "\tctx, cancel := s.ctx(ctx)\n", "\tctx, cancel := s.ctx(ctx) // every query has a deadline\n"), "replace_all", true), want: []doc{ctxAll}})
	g.add(cs{class: class, id: "refuse-short-token", note: "a short old_string found in many places",
		files: []doc{server}, call: replaceCall("server.go", "id)", "recordID)"), refuse: refuse("ambiguous", `\blines \d+, \d+`)})
	// Patches: the same hunk text in two handlers.
	badEd := ed{at: `http.Error(w, "bad id", http.StatusBadRequest)`, nth: 2, n: 1, repl: L("\t\t" + badNew)}
	firstEd := ed{at: `http.Error(w, "bad id", http.StatusBadRequest)`, nth: 1, n: 1, repl: L("\t\t" + badNew)}
	twice := h(badEd)
	twice.before, twice.after = 2, 2
	g.add(cs{class: class, id: "refuse-envelope-no-anchor", note: "envelope hunk whose lines occur in both handlers, no anchor",
		files: []doc{server}, call: patchCall(envelope(view{}, part{d: server, hunks: []hunk{twice}})), refuse: refuse("ambiguous", linesRe(bad1-2, bad2-2))})
	anchored := twice
	anchored.anchor = "func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {"
	g.patchCase(class, "envelope-anchor-picks", "the @@ anchor names the handler", []doc{server},
		envelope(view{}, part{d: server, hunks: []hunk{anchored}}), server.apply(badEd))
	g.patchCase(class, "unified-numbers-pick-second", "the hunk's line numbers name the second place", []doc{server},
		unified(view{}, "git", part{d: server, hunks: []hunk{twice}}), server.apply(badEd))
	first := h(firstEd)
	first.before, first.after = 2, 2
	g.patchCase(class, "unified-numbers-pick-first", "the hunk's line numbers name the first place", []doc{server},
		unified(view{}, "git", part{d: server, hunks: []hunk{first}}), server.apply(firstEd))
	near := twice
	near.off = 2
	g.patchCase(class, "unified-numbers-near-second", "numbers two lines off the second place", []doc{server},
		unified(view{}, "ab", part{d: server, hunks: []hunk{near}}), server.apply(badEd))
	far := twice
	far.off = 1 - (bad2 - 2)
	g.add(cs{class: class, id: "refuse-unified-numbers-name-neither", note: "the numbers point at line 1, far from both places",
		files: []doc{server}, call: patchCall(unified(view{}, "ab", part{d: server, hunks: []hunk{far}})), refuse: refuse("ambiguous", linesRe(bad1-2, bad2-2))})
	g.add(cs{class: class, id: "refuse-bare-hunk", note: "a hunk with a bare @@ header, found twice",
		files: []doc{server}, call: patchCall(unified(view{}, "bare", part{d: server, hunks: []hunk{twice}})), refuse: refuse("ambiguous", linesRe(bad1-2, bad2-2))})
	// A pure insertion placed only by context lines that occur ten times.
	ins := "*** Begin Patch\n*** Update File: store.go\n@@\n \tctx, cancel := s.ctx(ctx)\n \tdefer cancel()\n+\tlogQuery(ctx)\n*** End Patch\n"
	g.add(cs{class: class, id: "refuse-insertion-context-everywhere", note: "an insertion whose context occurs in every method",
		files: []doc{store}, call: patchCall(ins), refuse: refuse("ambiguous", linesRe(nthLine(store, "ctx, cancel := s.ctx(ctx)", 1), nthLine(store, "ctx, cancel := s.ctx(ctx)", 2)))})
}

func classPatchContext(g *gen) {
	const class = "patch_context"
	server, py, ts, csf := g.file("server.go"), g.file("inventory.py"), g.file("client.ts"), g.file("Settings.cs")
	// Context that is almost right: stale line numbers, a context line skipped, a context line
	// that already shows the intended state (holon#2741: every failure was a context mismatch).
	for _, x := range []struct {
		id  string
		d   doc
		e   ed
		off int
	}{{"plus-3", server, sNew, 3}, {"minus-6", py, pLow, -6}, {"plus-40", ts, tGet, 40}, {"past-eof", server, sSwitch, 500}} {
		hk := h(x.e)
		hk.off = x.off
		g.patchCase(class, "unified-numbers-"+x.id, "hunk header line numbers off", []doc{x.d},
			unified(view{}, "git", part{d: x.d, hunks: []hunk{hk}}), x.d.apply(x.e))
	}
	p := unified(view{}, "ab", part{d: py, hunks: []hunk{h(pRestock)}})
	at := strings.Index(p, "@@ -")
	end := strings.Index(p[at+2:], "@@") + at + 4
	p = p[:at] + "@@ -10,3 +10,4 @@" + p[end:]
	g.patchCase(class, "unified-wrong-counts", "hunk header counts and numbers that fit nothing", []doc{py}, p, py.apply(pRestock))
	an := h(pLoad)
	an.anchor = "def load(path):"
	g.patchCase(class, "envelope-anchor", "envelope anchored at the function", []doc{py}, envelope(view{}, part{d: py, hunks: []hunk{an}}), py.apply(pLoad))
	loose := h(pReserve)
	loose.anchor = "def reserve(self, sku, count):"
	g.patchCase(class, "envelope-anchor-approximate", "the @@ anchor paraphrases the signature; the hunk itself is unique", []doc{py},
		envelope(view{}, part{d: py, hunks: []hunk{loose}}), py.apply(pReserve))
	for _, x := range []struct {
		id    string
		d     doc
		e     ed
		skip  int
		style string
	}{
		{"go-get", server, sGet, 1, "git"}, {"py-reserve", py, pReserve, 8, ""}, {"ts-headers", ts, tHeaders, 2, "ab"},
		{"cs-parts", csf, csParts, 1, ""}, {"go-health", server, sHealth, 5, "git"},
	} {
		hk := h(x.e)
		hk.skip = x.skip
		name := "envelope"
		text := envelope(view{}, part{d: x.d, hunks: []hunk{hk}})
		if x.style != "" {
			name, text = "unified", unified(view{}, x.style, part{d: x.d, hunks: []hunk{hk}})
		}
		g.patchCase(class, name+"-skipped-context-"+x.id, "the hunk leaves out one context line", []doc{x.d}, text, x.d.apply(x.e))
	}
	for _, x := range []struct {
		id    string
		d     doc
		e     ed
		stale map[int]string
	}{
		{"go-switch", server, sSwitch, map[int]string{1: "\t\treturn 0, fmt.Errorf(\"bad limit %q: %w\", s, err)"}},
		{"py-reserve", py, pReserve, map[int]string{4: "            raise OutOfStock(sku, item.quantity)"}},
		{"ts-get", ts, tGet, map[int]string{5: "    if (res.status === 404 || res.status === 410) {"}},
	} {
		hk := h(x.e)
		hk.stale = x.stale
		g.patchCase(class, "envelope-context-leak-"+x.id, "one context line already shows the state the model intends", []doc{x.d},
			envelope(view{}, part{d: x.d, hunks: []hunk{hk}}), x.d.apply(x.e))
	}
	lost := func(p string) string {
		var out []string
		for _, l := range strings.Split(p, "\n") {
			if strings.HasPrefix(l, " \t") {
				l = l[1:]
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	g.patchCase(class, "unified-lost-leading-space", "context lines that lost their leading space", []doc{server},
		lost(unified(view{}, "git", part{d: server, hunks: []hunk{h(sNew)}})), server.apply(sNew))
	g.patchCase(class, "envelope-lost-leading-space", "envelope context lines that lost their leading space", []doc{server},
		lost(envelope(view{}, part{d: server, hunks: []hunk{h(sSwitch)}})), server.apply(sSwitch))
	one := h(sNew)
	one.before, one.after = 1, 1
	g.patchCase(class, "unified-one-context-line", "one line of context each side", []doc{server}, unified(view{}, "git", part{d: server, hunks: []hunk{one}}), server.apply(sNew))
	zero := h(pLow)
	zero.before, zero.after = 0, 0
	g.patchCase(class, "envelope-no-context", "a hunk of removed and added lines only", []doc{py}, envelope(view{}, part{d: py, hunks: []hunk{zero}}), py.apply(pLow))
	// Refusals.
	staleRm := h(pLow)
	staleRm.stale = map[int]string{4: "        result: list = []"}
	g.add(cs{class: class, id: "refuse-removed-line-differs", note: "a removed line that is not in the file",
		files: []doc{py}, call: patchCall(envelope(view{}, part{d: py, hunks: []hunk{staleRm}})), refuse: refuse("not_found", lineRe(ln(py, "result = []")))})
	two := h(sRoute)
	two.stale = map[int]string{0: "\tmux.HandleFunc(\"/records\", s.handleList)", 1: "\tmux.HandleFunc(\"/records/get\", s.handleGet)"}
	g.add(cs{class: class, id: "refuse-two-context-lines-differ", note: "two context lines of a pure insertion differ from the file",
		files: []doc{server}, call: patchCall(unified(view{}, "git", part{d: server, hunks: []hunk{two}})), refuse: refuse("not_found", lineRe(ln(server, "// Routes registers")))})
	gap := "--- a/server.go\n+++ b/server.go\n@@ -91,6 +91,6 @@\n \tswitch {\n \tcase n < 1:\n \t\treturn 1, nil\n-\tcase n > 500:\n+\tcase n > 1000:\n+\t\treturn 1000, nil\n \t}\n \treturn n, nil\n"
	g.add(cs{class: class, id: "refuse-gap-next-to-removed-line", note: "the hunk removes a line but skips the one after it: what was meant cannot be told",
		files: []doc{server}, call: patchCall(gap), refuse: refuse("not_found", lineRe(ln(server, "return 500, nil")))})
}

// Large patches: edits across store.go, views.py and server.go.
var (
	storeEdits = []ed{
		{at: "var ErrConflict = errors.New(\"conflicting update\")", n: 1, repl: L("var ErrConflict = errors.New(\"store: conflicting update\")")},
		{at: "PlacedAt   time.Time", n: 2, repl: R(K(0), L("\tNote       string"), K(1))},
		{at: "return &Store{db: db, timeout: 3 * time.Second}", n: 1, repl: L("\treturn &Store{db: db, timeout: 5 * time.Second}")},
		{at: "return nil, fmt.Errorf(\"customer %d: %w\", id, err)", n: 1, repl: L("\t\treturn nil, fmt.Errorf(\"load customer %d: %w\", id, err)")},
		{at: "prefix+\"%\", limit)", n: 1, repl: L("\t\tstrings.ReplaceAll(prefix, \"%\", `\\%`)+\"%\", limit)")},
		{at: "c.Email = strings.ToLower(strings.TrimSpace(c.Email))", n: 1, repl: R(K(0), L("\tif c.Email == \"\" {", "\t\treturn errors.New(\"create customer: email is required\")", "\t}"))},
		{at: "return ErrConflict", n: 1, repl: L("\t\treturn fmt.Errorf(\"update customer %d: %w\", c.ID, ErrConflict)")},
		{at: "defer tx.Rollback()", n: 1, repl: L("\tdefer tx.Rollback() //nolint:errcheck // a no-op after Commit")},
		{at: "ORDER BY placed_at DESC`", n: 1, repl: L("\t\t`SELECT id, customer_id, total, status, placed_at FROM orders WHERE customer_id = $1 ORDER BY placed_at DESC, id DESC`,")},
		{at: "if o.Total <= 0 {", n: 3, repl: R(K(0), L("\t\treturn fmt.Errorf(\"place order: total must be positive, got %d cents\", o.Total)"), K(2))},
		{at: "case \"new\", \"paid\", \"shipped\", \"cancelled\":", n: 1, repl: L("\tcase \"new\", \"paid\", \"shipped\", \"cancelled\", \"refunded\":")},
		{at: "status IN ('paid', 'shipped')", n: 1, repl: L("\t\t`SELECT SUM(total) FROM orders WHERE status IN ('paid', 'shipped') AND placed_at >= $1 AND placed_at < now()`, since).Scan(&total)")},
	}
	viewEdits = []ed{
		{at: "seats = int(data.get(\"seats\", 4))", n: 1, repl: R(K(0), L("        if seats < 1:", "            return _json(400, {\"error\": \"seats must be positive\"})"))},
		{at: "day = date.today()", n: 1, repl: L("            day = datetime.now().date()")},
		{at: "the room is already booked", n: 1, repl: L("            return _json(409, {\"error\": \"the room is already booked at that time\"})")},
		{at: "return _json(204, {})", n: 1, repl: L("        return 204, {}, \"\"")},
		{at: "(\"DELETE\", \"/bookings/<id>\", bookings.cancel),", n: 1, repl: R(K(0), L("        (\"GET\", \"/healthz\", lambda request: _json(200, {\"ok\": True})),"))},
	}
	serverEdits = []ed{sGet, sRoute, sSwitch}
)

func hunks(eds []ed) []hunk {
	var out []hunk
	for _, e := range eds {
		out = append(out, h(e))
	}
	return out
}

func classPatchLarge(g *gen) {
	const class = "patch_large"
	store, views, server := g.file("store.go"), g.file("views.py"), g.file("server.go")
	want := []doc{store.apply(storeEdits...), views.apply(viewEdits...), server.apply(serverEdits...)}
	files := []doc{store, views, server}
	parts := func(mod func(file string, i int, hk hunk) hunk) []part {
		var out []part
		for _, x := range []struct {
			d   doc
			eds []ed
		}{{store, storeEdits}, {views, viewEdits}, {server, serverEdits}} {
			var hs []hunk
			for i, e := range x.eds {
				hk := h(e)
				if mod != nil {
					hk = mod(x.d.path, i, hk)
				}
				hs = append(hs, hk)
			}
			out = append(out, part{d: x.d, hunks: hs})
		}
		return out
	}
	large := func(id, note, text string, files []doc, want []doc) {
		if len(text) < 4000 {
			panic(fmt.Sprintf("%s: patch of %d characters is not large", id, len(text)))
		}
		g.patchCase(class, id, note, files, text, want...)
	}
	// Patches of 4k characters and more failed 83 % of the time in the replayed sessions
	// (holon#2741); Codex issues #32583 ("a code file of several thousand lines").
	large("unified-git-exact", "20 hunks over three files, exact", unified(view{}, "git", parts(nil)...), files, want)
	large("envelope-exact", "20 hunks over three files, envelope, a few anchors", envelope(view{}, parts(func(f string, i int, hk hunk) hunk {
		if f == "store.go" && i == 9 {
			hk.anchor = "func (s *Store) PlaceOrder(ctx context.Context, o *Order) error {"
		}
		return hk
	})...), files, want)
	large("unified-numbers-off", "every hunk's numbers seven lines off", unified(view{}, "git", parts(func(f string, i int, hk hunk) hunk { hk.off = 7; return hk })...), files, want)
	var mixed []part
	for _, p := range parts(nil) {
		mixed = append(mixed, p)
	}
	text := envelope(view{}, mixed[0], mixed[2]) // views.py goes in with two-space indentation
	vtext := envelope(view{line: rescale(4, 2)}, mixed[1])
	text = strings.TrimSuffix(text, "*** End Patch\n") + strings.TrimPrefix(vtext, "*** Begin Patch\n")
	large("envelope-indentation-drift", "one file's hunks re-indented at two spaces", text, files, want)
	large("unified-skipped-context", "three hunks each leave out a context line", unified(view{}, "git", parts(func(f string, i int, hk hunk) hunk {
		if i == 2 || i == 4 {
			hk.skip = 1
		}
		return hk
	})...), files, want)
	crlf := store.crlf()
	large("unified-crlf-file", "one file is CRLF on disk", unified(view{}, "git", parts(nil)...), []doc{crlf, views, server},
		[]doc{crlf.apply(storeEdits...), want[1], want[2]})
	rev := parts(nil)
	for i, j := 0, len(rev[0].hunks)-1; i < j; i, j = i+1, j-1 {
		rev[0].hunks[i], rev[0].hunks[j] = rev[0].hunks[j], rev[0].hunks[i]
	}
	large("envelope-hunks-reversed", "one file's hunks listed bottom to top", envelope(view{}, rev...), files, want)
	trailing := store.clone()
	for i, l := range trailing.lines {
		if strings.HasPrefix(l, "\tdefer cancel()") || strings.HasPrefix(l, "// ") {
			trailing.lines[i] = l + "  "
		}
	}
	large("unified-trailing-whitespace", "the file has trailing spaces the patch's context lacks", unified(view{copied: trimRight}, "git", parts(nil)...),
		[]doc{trailing, views, server}, []doc{trailing.apply(storeEdits...), want[1], want[2]})
	added := "package store\n\n// Schema is the SQL the store expects.\nconst Schema = `\nCREATE TABLE customers (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, created_at TIMESTAMPTZ NOT NULL, version INT NOT NULL);\nCREATE TABLE orders (id BIGSERIAL PRIMARY KEY, customer_id BIGINT NOT NULL REFERENCES customers(id), total BIGINT NOT NULL, status TEXT NOT NULL, placed_at TIMESTAMPTZ NOT NULL);\n`\n"
	rs := g.file("router.rs")
	four := append(parts(nil), part{d: parseDoc("schema.go", added), op: "add", add: added}, part{d: rs, op: "delete"})
	g.add(cs{class: class, id: "unified-five-files", note: "three updates, an added and a deleted file",
		files: []doc{store, views, server, rs}, call: patchCall(unified(view{}, "git", four...)),
		want: append(cloneDocs(want), parseDoc("schema.go", added)), gone: []string{"router.rs"}})
	// Refusals: one bad hunk among twenty writes nothing.
	bad := parts(func(f string, i int, hk hunk) hunk {
		if f == "store.go" && i == 9 {
			hk.stale = map[int]string{4: "\t\treturn fmt.Errorf(\"place order: total must be positive\")"}
		}
		return hk
	})
	text = unified(view{}, "git", bad...)
	g.add(cs{class: class, id: "refuse-one-stale-hunk", note: "hunk 10 of store.go removes a line that is not there; nothing is written",
		files: files, call: patchCall(text), refuse: refuse("not_found", lineRe(ln(store, "if o.Total <= 0 {")+1), `hunk 10`)})
	amb := "\n@@\n \tctx, cancel := s.ctx(ctx)\n \tdefer cancel()\n+\tstart := time.Now()\n"
	text = envelope(view{}, parts(nil)...)
	text = strings.Replace(text, "*** Update File: views.py", strings.TrimPrefix(amb, "\n")+"*** Update File: views.py", 1)
	g.add(cs{class: class, id: "refuse-one-ambiguous-hunk", note: "one hunk's context occurs in every method; nothing is written",
		files: files, call: patchCall(text), refuse: refuse("ambiguous", linesRe(nthLine(store, "ctx, cancel := s.ctx(ctx)", 1), nthLine(store, "ctx, cancel := s.ctx(ctx)", 2)))})
}

func cloneDocs(d []doc) []doc { return append([]doc(nil), d...) }

func classPatchOverlap(g *gen) {
	const class = "patch_overlap"
	server, py := g.file("server.go"), g.file("inventory.py")
	// Hunks written each against the original file, whose contexts overlap or include a line
	// another hunk changes; hunks out of order; a hunk written against another's result
	// (openjdk/skara#113 coalescing overlapping hunks; python-patch#47 hunks in any order).
	idEd := ed{at: `id, err := strconv.Atoi(r.URL.Query().Get("id"))`, nth: 1, n: 1, repl: L("\tid, err := strconv.Atoi(r.PathValue(\"id\"))")}
	badEd := ed{at: `http.Error(w, "bad id", http.StatusBadRequest)`, nth: 1, n: 1, repl: L("\t\thttp.Error(w, \"bad id: \"+err.Error(), http.StatusBadRequest)")}
	want := server.apply(idEd, badEd)
	g.patchCase(class, "unified-context-holds-changed-line", "hunk 2's context holds the line hunk 1 changes, as it was", []doc{server},
		unified(view{}, "git", part{d: server, hunks: hunks([]ed{idEd, badEd})}), want)
	g.patchCase(class, "envelope-context-holds-changed-line", "envelope: hunk 2's context holds hunk 1's old line", []doc{server},
		envelope(view{}, part{d: server, hunks: hunks([]ed{idEd, badEd})}), want)
	g.patchCase(class, "unified-out-of-order", "hunks listed bottom to top", []doc{server},
		unified(view{}, "git", part{d: server, hunks: hunks([]ed{sSwitch, sGet})}), server.apply(sGet, sSwitch))
	g.patchCase(class, "envelope-out-of-order", "envelope hunks listed bottom to top", []doc{server},
		envelope(view{}, part{d: server, hunks: hunks([]ed{sSwitch, sRoute, sGet})}), server.apply(sGet, sRoute, sSwitch))
	// Hunk 2 written against the file as hunk 1 left it.
	d1 := server.apply(sRoute)
	health := ed{at: `fmt.Fprintln(w, "ok")`, n: 1, repl: L("\t\tfmt.Fprintln(w, \"ok\", time.Now().Unix())")}
	second := h(health)
	second.on = &d1
	g.patchCase(class, "unified-second-on-first", "hunk 2's context includes hunk 1's added line", []doc{server},
		unified(view{}, "git", part{d: server, hunks: []hunk{h(sRoute), second}}), d1.apply(health))
	g.patchCase(class, "envelope-second-on-first", "envelope hunk 2 written on hunk 1's result", []doc{server},
		envelope(view{}, part{d: server, hunks: []hunk{h(sRoute), second}}), d1.apply(health))
	// Adjacent edits two lines apart.
	a := ed{at: "raise OutOfStock(", n: 1, repl: L("            raise OutOfStock(f\"only {item.quantity} of {sku} left, {count} asked\")")}
	b := ed{at: "return item", nth: 2, n: 1, repl: L("        return self.items[sku]")}
	g.patchCase(class, "unified-adjacent", "two edits two lines apart, each with full context", []doc{py},
		unified(view{}, "ab", part{d: py, hunks: hunks([]ed{a, b})}), py.apply(a, b))
	g.patchCase(class, "envelope-adjacent", "envelope: two edits two lines apart", []doc{py},
		envelope(view{}, part{d: py, hunks: hunks([]ed{a, b})}), py.apply(a, b))
	// Refusal: two hunks change one line two ways.
	other := ed{at: `http.Error(w, "bad id", http.StatusBadRequest)`, nth: 1, n: 1, repl: L("\t\thttp.Error(w, \"invalid id\", http.StatusBadRequest)")}
	g.add(cs{class: class, id: "refuse-conflicting-hunks", note: "two hunks change the same line differently",
		files: []doc{server}, call: patchCall(unified(view{}, "git", part{d: server, hunks: hunks([]ed{badEd, other})})),
		refuse: refuse("not_found|conflict|ambiguous", lineRe(nthLine(server, `"bad id"`, 1)))})
}

func classFinalNewline(g *gen) {
	const class = "final_newline"
	mk, yml, server := g.file("Makefile").noFinalNewline(), g.file("ci.yml").noFinalNewline(), g.file("server.go").noFinalNewline()
	// Files without a final newline, and models that assume one (or add one).
	g.replaceCase(class, "replace-last-line", "the last line, no final newline", mk, mkClean, view{})
	last := "\t$(GO) clean -testcache"
	g.add(cs{class: class, id: "replace-last-line-old-with-newline", note: "old_string and new_string end with a newline the file lacks",
		files: []doc{mk}, call: replaceCall("Makefile", last+"\n", "\t$(GO) clean -testcache -cache\n"), want: []doc{mk.apply(mkClean)}})
	g.add(cs{class: class, id: "replace-append-after-last", note: "a line added after the last line",
		files: []doc{mk}, call: replaceCall("Makefile", last, last+"\n\trm -f coverage.out"), want: []doc{mk.apply(ed{at: "clean -testcache", n: 1, repl: R(K(0), L("\trm -f coverage.out"))})}})
	g.patchCase(class, "unified-last-line-no-marker", "a hunk on the last line without the no-newline marker", []doc{mk},
		unified(view{}, "git", part{d: mk, hunks: []hunk{h(mkClean)}}), mk.apply(mkClean))
	g.patchCase(class, "envelope-last-line", "envelope on the last line", []doc{mk},
		envelope(view{}, part{d: mk, hunks: []hunk{h(mkClean)}}), mk.apply(mkClean))
	marked := "--- a/Makefile\n+++ b/Makefile\n@@ -21,3 +21,3 @@\n clean:\n \trm -rf bin\n-\t$(GO) clean -testcache\n\\ No newline at end of file\n+\t$(GO) clean -testcache -cache\n\\ No newline at end of file\n"
	g.patchCase(class, "unified-markers-both-sides", "no-newline markers on both sides", []doc{mk}, marked, mk.apply(mkClean))
	addNL := "--- a/Makefile\n+++ b/Makefile\n@@ -21,3 +21,3 @@\n clean:\n \trm -rf bin\n-\t$(GO) clean -testcache\n\\ No newline at end of file\n+\t$(GO) clean -testcache -cache\n"
	withNL := mk.apply(mkClean)
	withNL.eols[len(withNL.eols)-1] = "\n"
	g.patchCase(class, "unified-adds-final-newline", "the marker only on the old side: the patch adds the final newline", []doc{mk}, addNL, withNL)
	eofAdd := "*** Begin Patch\n*** Update File: ci.yml\n@@\n           staticcheck ./...\n+\n+  docs:\n+    runs-on: ubuntu-latest\n+    steps:\n+      - uses: actions/checkout@v4\n*** End of File\n*** End Patch\n"
	g.patchCase(class, "envelope-append-end-of-file", "envelope appending at *** End of File", []doc{yml}, eofAdd,
		yml.apply(ed{at: "staticcheck ./...", n: 1, repl: R(K(0), L("", "  docs:", "    runs-on: ubuntu-latest", "    steps:", "      - uses: actions/checkout@v4"))}))
	g.add(cs{class: class, id: "insert-append", note: "insert_edit after the last line",
		files: []doc{yml}, call: map[string]any{"operation": "insert_edit", "path": "ci.yml", "line": len(yml.lines) + 1, "content": "          go vet ./...\n"},
		want: []doc{yml.apply(ed{at: "staticcheck ./...", n: 1, repl: R(K(0), L("          go vet ./..."))})}})
	g.add(cs{class: class, id: "insert-replace-last", note: "insert_edit replacing the last line",
		files: []doc{mk}, call: map[string]any{"operation": "insert_edit", "path": "Makefile", "start_line": len(mk.lines), "end_line": len(mk.lines), "content": "\t$(GO) clean -testcache -cache\n"},
		want: []doc{mk.apply(mkClean)}})
	g.replaceCase(class, "replace-go-last-brace", "the closing brace of the last function, no final newline", server, sSwitch, view{})
	crlf := g.file("Makefile").crlf().noFinalNewline()
	g.replaceCase(class, "replace-crlf-last-line", "CRLF file without a final newline, LF copy", crlf, mkClean, view{})
	single := parseDoc("VERSION", "1.4.2")
	g.add(cs{class: class, id: "replace-single-line-file", note: "a one-line file without a newline",
		files: []doc{single}, call: replaceCall("VERSION", "1.4.2\n", "1.5.0\n"), want: []doc{parseDoc("VERSION", "1.5.0")}})
}

// readView is what read_file shows of a line of d: bytes that are not UTF-8 become U+FFFD.
func readView(d doc) func(string) string {
	return func(s string) string {
		b, err := encodeText(s, d.enc)
		if err != nil {
			panic(err)
		}
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
}

func classEncoding(g *gen) {
	const class = "encoding"
	fr := g.file("messages_fr.properties").encoded("latin-1")
	server := g.file("server.go")
	// Legacy encodings: edits must keep the file's encoding, and refuse what it cannot hold
	// (anthropics/claude-code#62723, #85842, opencode#49600, #28521, #45924, openclaw#69636).
	frEd := func(at string, repl ...string) ed { return ed{at: at, n: 1, repl: L(repl...)} }
	saved := frEd("status.saved=", "status.saved=Modifications enregistrées à {0} ({1} fichiers).")
	help := frEd("menu.help=", "menu.help=Aide et à propos")
	full := frEd("error.full=", "error.full=Le créneau est complet ; choisissez-en un autre.")
	g.replaceCase(class, "latin1-ascii-line", "an ASCII line of a Latin-1 file", fr, frEd("button.save=", "button.save=Enregistrer (Ctrl+S)"), view{})
	g.replaceCase(class, "latin1-accented-line", "a line with accents, old and new as text", fr, saved, view{})
	g.replaceCase(class, "latin1-adds-accent", "new_string brings an accent to an ASCII line", fr, help, view{})
	rv := view{copied: readView(fr)}
	// The model keeps read_file's U+FFFD in the part of the line it did not retype.
	g.add(cs{class: class, id: "latin1-copied-replacement-char", note: "old_string and new_string copied from read_file, with U+FFFD where the file has é",
		files: []doc{fr}, call: replaceCall("messages_fr.properties", readView(fr)(fr.lines[ln(fr, "error.full=")-1]), readView(fr)("error.full=Le créneau est complet ; choisissez-en un autre.")),
		want: []doc{fr.apply(full)}})
	o, _ := rv.oldNew(fr, full)
	_, n := view{}.oldNew(fr, full)
	g.add(cs{class: class, id: "latin1-fffd-old-typed-new", note: "old_string with U+FFFD from read_file, new_string typed with é",
		files: []doc{fr}, call: replaceCall("messages_fr.properties", o, n), want: []doc{fr.apply(full)}})
	wrap := ed{at: "button.delete=", n: 2, repl: R(K(0), L("confirm.delete=Voulez-vous vraiment supprimer cette réservation ? Cette action est définitive."))}
	g.patchCase(class, "latin1-envelope", "envelope with accented context on a Latin-1 file", []doc{fr}, envelope(view{}, part{d: fr, hunks: []hunk{h(wrap)}}), fr.apply(wrap))
	g.patchCase(class, "latin1-unified-copied", "unified diff whose context was copied from read_file (U+FFFD)", []doc{fr},
		unified(view{copied: readView(fr)}, "git", part{d: fr, hunks: []hunk{h(frEd("button.cancel=", "button.cancel=Annuler l'opération"))}}),
		fr.apply(frEd("button.cancel=", "button.cancel=Annuler l'opération")))
	g.add(cs{class: class, id: "latin1-insert", note: "insert_edit of accented text into a Latin-1 file",
		files: []doc{fr}, call: map[string]any{"operation": "insert_edit", "path": "messages_fr.properties", "after_pattern": "menu.help=", "content": "menu.prefs=Préférences\n"},
		want: []doc{fr.apply(ed{at: "menu.help=", n: 1, repl: R(K(0), L("menu.prefs=Préférences"))})}})
	o1, n1 := view{}.oldNew(fr, saved)
	o2, n2 := view{}.oldNew(server, sRoute)
	g.add(cs{class: class, id: "latin1-and-utf8-multi", note: "multi_replace_string over a Latin-1 and a UTF-8 file",
		files: []doc{fr, server}, call: multiCall(multiEdit("messages_fr.properties", o1, n1), multiEdit("server.go", o2, n2)), want: []doc{fr.apply(saved), server.apply(sRoute)}})
	rdv := fr.clone()
	for i, l := range rdv.lines {
		rdv.lines[i] = strings.ReplaceAll(l, "réservation", "rendez-vous")
	}
	g.add(cs{class: class, id: "latin1-replace-all", note: "replace_all of an accented word",
		files: []doc{fr}, call: with(replaceCall("messages_fr.properties", "réservation", "rendez-vous"), "replace_all", true), want: []doc{rdv}})
	g.add(cs{class: class, id: "refuse-latin1-arrow", note: "new_string holds → (U+2192), which Latin-1 cannot hold",
		files: []doc{fr}, call: replaceCall("messages_fr.properties", "menu.help=Aide", "menu.help=Aide → Sommaire"),
		refuse: refuse("unencodable", `U\+2192`, lineRe(ln(fr, "menu.help=")))})
	g.add(cs{class: class, id: "refuse-latin1-euro", note: "€ fits Windows-1252 but not Latin-1, and nothing in the file tells them apart",
		files: []doc{fr}, call: replaceCall("messages_fr.properties", "button.save=Enregistrer", "button.save=Enregistrer (0,50 €)"),
		refuse: refuse("unencodable", `U\+20AC`, lineRe(ln(fr, "button.save=")))})
	g.add(cs{class: class, id: "refuse-latin1-emoji-insert", note: "insert_edit of an emoji into a Latin-1 file",
		files: []doc{fr}, call: map[string]any{"operation": "insert_edit", "path": "messages_fr.properties", "line": 2, "content": "app.icon=📅\n"},
		refuse: refuse("unencodable", `U\+1F4C5`, lineRe(2))})
	// Windows-1252 with CRLF: € and typographic quotes are single bytes.
	pas := g.file("Facture.pas").crlf().encoded("windows-1252")
	euro := ed{at: "Result := FormatFloat", n: 1, repl: L("  Result := FormatFloat('#,##0.00', Montant) + '\u00a0€';")}
	ttc := ed{at: "{ “TTC”", n: 1, repl: L("  { “TTC” = toutes taxes comprises ; Taux est une fraction (0,2 pour 20 %) }")}
	g.replaceCase(class, "cp1252-euro-line", "a line with € in a Windows-1252 file", pas, euro, view{})
	g.replaceCase(class, "cp1252-curly-quotes", "typographic quotes in a Windows-1252 comment", pas, ttc, view{})
	g.replaceCase(class, "cp1252-adds-ellipsis", "new_string brings an ellipsis (0x85 in Windows-1252)", pas, ed{at: "{ Calcul des factures", n: 1, repl: L("{ Calcul des factures – version 3.2… }")}, view{})
	g.replaceCase(class, "cp1252-copied-replacement-char", "old_string copied from read_file, U+FFFD for € and –", pas, ed{at: "{ Attention", n: 1, repl: L("{ Attention : les montants sont en € (euros), arrondis au centime supérieur. }")}, view{copied: readView(pas)})
	g.add(cs{class: class, id: "refuse-cp1252-check-mark", note: "✓ is in no single-byte Western encoding",
		files: []doc{pas}, call: replaceCall("Facture.pas", "{ Calcul des factures – version 3.2 }", "{ Calcul des factures – version 3.2 ✓ }"),
		refuse: refuse("unencodable", `U\+2713`, lineRe(ln(pas, "{ Calcul des factures")))})
	g.patchCase(class, "cp1252-envelope", "envelope on a Windows-1252 CRLF file", []doc{pas}, envelope(view{}, part{d: pas, hunks: []hunk{h(ttc)}}), pas.apply(ttc))
	// UTF-16 with a byte order mark (PowerShell scripts saved by Windows tools).
	ps1 := g.file("deploy.ps1").crlf().encoded("utf-16le")
	done := ed{at: "Write-Host \"Terminé.\"", n: 1, repl: L("Write-Host \"Déploiement terminé.\" -ForegroundColor Green")}
	g.replaceCase(class, "utf16le-ascii-line", "an ASCII line of a UTF-16LE file", ps1, ed{at: "$ErrorActionPreference", n: 1, repl: L("$ErrorActionPreference = \"Stop\"", "Set-StrictMode -Version Latest")}, view{})
	g.replaceCase(class, "utf16le-accents", "a line with accents in a UTF-16LE file", ps1, done, view{})
	g.patchCase(class, "utf16le-envelope", "envelope on a UTF-16LE file", []doc{ps1}, envelope(view{}, part{d: ps1, hunks: []hunk{h(ed{at: "Backup-Database -Name \"Billing\"", n: 1, repl: L("    Backup-Database -Name \"Billing\"", "    Backup-Database -Name \"Audit\"")})}}),
		ps1.apply(ed{at: "Backup-Database -Name \"Billing\"", n: 1, repl: L("    Backup-Database -Name \"Billing\"", "    Backup-Database -Name \"Audit\"")}))
	g.add(cs{class: class, id: "utf16le-insert", note: "insert_edit into a UTF-16LE file",
		files: []doc{ps1}, call: map[string]any{"operation": "insert_edit", "path": "deploy.ps1", "before_pattern": "Write-Host \"Terminé.\"", "content": "Remove-Item \"$root\\dist\\*.tmp\" -ErrorAction SilentlyContinue\n"},
		want: []doc{ps1.apply(ed{at: "Write-Host \"Terminé.\"", n: 1, repl: R(L("Remove-Item \"$root\\dist\\*.tmp\" -ErrorAction SilentlyContinue"), K(0))})}})
	o1, n1 = view{}.oldNew(ps1, done)
	g.add(cs{class: class, id: "utf16le-and-utf8-multi", note: "multi_replace_string over a UTF-16LE and a UTF-8 file",
		files: []doc{ps1, server}, call: multiCall(multiEdit("deploy.ps1", o1, n1), multiEdit("server.go", o2, n2)), want: []doc{ps1.apply(done), server.apply(sRoute)}})
	g.replaceCase(class, "utf16le-emoji", "UTF-16 holds any character", ps1, ed{at: "Write-Host \"Terminé.\"", n: 1, repl: L("Write-Host \"Terminé. ✅\"")}, view{})
	be := parseDoc("greeting.txt", "Grüße aus Köln\r\nZeile zwei\r\n").encoded("utf-16be")
	g.replaceCase(class, "utf16be", "a UTF-16BE file", be, ed{at: "Zeile zwei", n: 1, repl: L("Zeile zwei, geändert")}, view{})
	md := g.file("GUIDE.md")
	md.bom = true
	g.replaceCase(class, "utf8-bom", "a UTF-8 file with a byte order mark", md, mReview, view{})
	// Encodings that cannot be told for sure: ASCII edits keep every other byte; text that
	// would need the encoding is refused with the reason.
	ru := g.file("notes_ru.txt").encoded("windows-1251")
	g.add(cs{class: class, id: "cp1251-ascii-in-cyrillic-line", note: "an ASCII edit inside a line of a Cyrillic Windows-1251 file",
		files: []doc{ru}, call: replaceCall("notes_ru.txt", "2.1", "2.2"), want: []doc{ru.setLine(0, "Заметки к выпуску 2.2")}})
	g.add(cs{class: class, id: "refuse-cp1251-cyrillic-text", note: "Cyrillic new text for a file whose encoding cannot be told",
		files: []doc{ru}, call: replaceCall("notes_ru.txt", "- Добавлен экспорт в CSV.", "- Добавлен экспорт в CSV и XLSX."),
		refuse: refuse("unencodable|not_found|invalid_value", `(?i)encoding`, lineRe(ln(ru, "CSV")))})
	ja := g.file("readme_ja.txt").encoded("shift-jis")
	g.add(cs{class: class, id: "sjis-ascii-line", note: "an ASCII line of a Shift-JIS file",
		files: []doc{ja}, call: replaceCall("readme_ja.txt", "server.port = 8080", "server.port = 9090"), want: []doc{ja.setLine(ln(ja, "server.port")-1, "server.port = 9090")}})
	g.add(cs{class: class, id: "refuse-sjis-japanese-text", note: "Japanese new text for a file whose encoding cannot be told",
		files: []doc{ja}, call: replaceCall("readme_ja.txt", "log.level = info", "log.level = info\n# 詳細ログ\nlog.verbose = false"),
		refuse: refuse("unencodable|not_found|invalid_value", `(?i)encoding`, lineRe(ln(ja, "log.level")+1))})
	// A UTF-8 file with one stray Latin-1 byte, and a Latin-1 file with one UTF-8 sequence
	// (what an earlier tool left behind).
	mixedText := strings.Replace(g.file("mixed.txt").text(), "PLACEHOLDER", "donn\xe9es.csv", 1)
	mixed := doc{path: "mixed.txt", raw: []byte(mixedText)}
	g.add(cs{class: class, id: "utf8-stray-byte-ascii-edit", note: "an ASCII edit in a UTF-8 file with one invalid byte: that byte stays",
		files: []doc{mixed}, call: replaceCall("mixed.txt", "30s to 60s", "30s to 90s"), want: []doc{{path: "mixed.txt", raw: []byte(strings.Replace(mixedText, "30s to 60s", "30s to 90s", 1))}}})
	g.add(cs{class: class, id: "utf8-stray-byte-accent", note: "UTF-8 text added to a UTF-8 file with one invalid byte",
		files: []doc{mixed}, call: replaceCall("mixed.txt", "* Timeout raised from 30s to 60s.", "* Timeout raised from 30s to 60s.\n* Naïve dates are read as UTC."),
		want: []doc{{path: "mixed.txt", raw: []byte(strings.Replace(mixedText, "60s.\n", "60s.\n* Naïve dates are read as UTC.\n", 1))}}})
	frBytes, _ := encodeText(fr.text(), "latin-1")
	scarred := bytes.Replace(frBytes, []byte("Gestion des r\xe9servations"), []byte("Gestion des r\xc3\xa9servations"), 1)
	g.add(cs{class: class, id: "latin1-with-utf8-scar-ascii", note: "a Latin-1 file with one UTF-8 sequence from an earlier tool; an ASCII edit",
		files: []doc{{path: "messages_fr.properties", raw: scarred}}, call: replaceCall("messages_fr.properties", "button.cancel=Annuler", "button.cancel=Fermer"),
		want: []doc{{path: "messages_fr.properties", raw: bytes.Replace(scarred, []byte("button.cancel=Annuler"), []byte("button.cancel=Fermer"), 1)}}})
	g.add(cs{class: class, id: "latin1-with-utf8-scar-accent", note: "the same file: à is written as Latin-1, the file's encoding",
		files: []doc{{path: "messages_fr.properties", raw: scarred}}, call: replaceCall("messages_fr.properties", "menu.help=Aide", "menu.help=Aide et à propos"),
		want: []doc{{path: "messages_fr.properties", raw: bytes.Replace(scarred, []byte("menu.help=Aide"), []byte("menu.help=Aide et \xe0 propos"), 1)}}})
}

func classInsert(g *gen) {
	const class = "insert_edit"
	server, py := g.file("server.go"), g.file("inventory.py")
	g.add(cs{class: class, id: "at-line", note: "content before a line number",
		files: []doc{server}, call: map[string]any{"operation": "insert_edit", "path": "server.go", "line": ln(server, "func parseLimit"), "content": "// parseLimit reads the limit query parameter.\n"},
		want: []doc{server.apply(ed{at: "func parseLimit", n: 1, repl: R(L("// parseLimit reads the limit query parameter."), K(0))})}})
	g.add(cs{class: class, id: "before-pattern", note: "content before a unique line",
		files: []doc{py}, call: map[string]any{"operation": "insert_edit", "path": "inventory.py", "before_pattern": "def load(path):", "content": "DEFAULT_PATH = \"stock.tsv\"\n\n\n"},
		want: []doc{py.apply(ed{at: "def load(path):", n: 1, repl: R(L("DEFAULT_PATH = \"stock.tsv\"", "", ""), K(0))})}})
	g.add(cs{class: class, id: "replace-lines", note: "start_line..end_line replaced",
		files: []doc{py}, call: map[string]any{"operation": "insert_edit", "path": "inventory.py", "start_line": ln(py, "def find(self") + 1, "end_line": ln(py, "def find(self") + 4, "content": "        return self.items.get(sku)\n"},
		want: []doc{py.apply(pFind)}})
	g.add(cs{class: class, id: "delete-lines", note: "start_line..end_line with empty content deletes them",
		files: []doc{server}, call: map[string]any{"operation": "insert_edit", "path": "server.go", "start_line": ln(server, `"/healthz"`), "end_line": ln(server, `"/healthz"`) + 2, "content": ""},
		want: []doc{server.apply(ed{at: `"/healthz"`, n: 3})}})
	g.add(cs{class: class, id: "content-without-newline", note: "content without a final newline is one whole line",
		files: []doc{server}, call: map[string]any{"operation": "insert_edit", "path": "server.go", "after_pattern": `mux.HandleFunc("/records/delete"`, "content": "\tmux.HandleFunc(\"/records/export\", s.handleExport)"},
		want: []doc{server.apply(sRoute)}})
	g.add(cs{class: class, id: "append", note: "after the last line",
		files: []doc{py}, call: map[string]any{"operation": "insert_edit", "path": "inventory.py", "line": len(py.lines) + 1, "content": "    raise SystemExit(0)\n"},
		want: []doc{py.apply(ed{at: "    main()", n: 1, repl: R(K(0), L("    raise SystemExit(0)"))})}})
	cs1 := g.file("Settings.cs").crlf()
	g.add(cs{class: class, id: "crlf-replace-lines", note: "replace lines of a CRLF file with LF content",
		files: []doc{cs1}, call: map[string]any{"operation": "insert_edit", "path": "Settings.cs", "start_line": ln(cs1, "public string Currency"), "end_line": ln(cs1, "public string Currency"), "content": "        public string Currency => Get(\"currency\", \"EUR\").ToUpperInvariant();\n"},
		want: []doc{cs1.apply(csCurrency)}})
	g.add(cs{class: class, id: "refuse-pattern-twice", note: "after_pattern on two lines",
		files: []doc{py}, call: map[string]any{"operation": "insert_edit", "path": "inventory.py", "after_pattern": "item = self.find(sku)", "content": "        self._touch(sku)\n"},
		refuse: refuse("ambiguous", linesRe(nthLine(py, "item = self.find(sku)", 1), nthLine(py, "item = self.find(sku)", 2)))})
	g.add(cs{class: class, id: "refuse-line-past-end", note: "a line number past the end",
		files: []doc{py}, call: map[string]any{"operation": "insert_edit", "path": "inventory.py", "line": len(py.lines) + 20, "content": "x = 1\n"},
		refuse: refuse("invalid_value", fmt.Sprintf(`\b%d\b`, len(py.lines)))})
	g.add(cs{class: class, id: "refuse-pattern-missing", note: "after_pattern that is on no line",
		files: []doc{py}, call: map[string]any{"operation": "insert_edit", "path": "inventory.py", "after_pattern": "def unreserve(self", "content": "        pass\n"},
		refuse: refuse("not_found", lineRe(ln(py, "def reserve(self")))})
	g.add(cs{class: class, id: "refuse-range-backwards", note: "start_line after end_line",
		files: []doc{py}, call: map[string]any{"operation": "insert_edit", "path": "inventory.py", "start_line": 20, "end_line": 12, "content": "pass\n"},
		refuse: refuse("invalid_value", `\b20\b`)})
}

func classNotFound(g *gen) {
	const class = "not_found"
	server, py, ts := g.file("server.go"), g.file("inventory.py"), g.file("client.ts")
	// Text that is not in the file: refused with the line where the model's text and the file
	// part, the nearest candidate, and what to do next (opencode#21850 hallucinated oldString
	// loops; gptme#1245 and holon#2741 asking for the first differing line).
	typo := strings.Replace(func() string { o, _ := view{}.oldNew(server, sGet); return o }(), "s.store.Get", "s.store.get", 1)
	g.add(cs{class: class, id: "typo-in-identifier", note: "one identifier misspelt",
		files: []doc{server}, call: replaceCall("server.go", typo, "x"), refuse: refuse("not_found", lineRe(ln(server, sGet.at)))})
	hall := "func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request) {\n\tid, err := parseID(r)\n\tif err != nil {\n\t\thttp.Error(w, \"bad id\", http.StatusBadRequest)\n\t\treturn\n\t}"
	g.add(cs{class: class, id: "hallucinated-line", note: "a line the model imagined in a real function",
		files: []doc{server}, call: replaceCall("server.go", hall, "x"), refuse: refuse("not_found", lineRe(ln(server, "func (s *Server) handleDelete")+1))})
	o, _ := view{}.oldNew(ts, tHeaders)
	g.add(cs{class: class, id: "wrong-file", note: "old_string from another file: nothing similar",
		files: []doc{server}, call: replaceCall("server.go", o, "x"), refuse: refuse("not_found", `\blines? \d+`)})
	g.add(cs{class: class, id: "renamed-function", note: "old_string names a function by its old name",
		files: []doc{py}, call: replaceCall("inventory.py", "    def low_stock_items(self, threshold=5):\n        result = []", "    def low_stock_items(self, threshold=3):\n        result = []"),
		refuse: refuse("not_found", lineRe(ln(py, "def low_stock")))})
	g.add(cs{class: class, id: "mid-line-typo", note: "a partial line with a typo",
		files: []doc{ts}, call: replaceCall("client.ts", "this.retries = options.retry ?? 2", "this.retries = options.retries ?? 3"), refuse: refuse("not_found", lineRe(ln(ts, "this.retries = options.retries ?? 2")))})
	g.add(cs{class: class, id: "no-similar-text", note: "nothing like old_string anywhere",
		files: []doc{py}, call: replaceCall("inventory.py", "SELECT * FROM warehouses WHERE region = ?", "x"), refuse: refuse("not_found", `\blines? \d+`)})
	hunkFake := "*** Begin Patch\n*** Update File: server.go\n@@ func (s *Server) handleList(w http.ResponseWriter, r *http.Request) {\n \tlimit, err := parseLimit(r.URL.Query().Get(\"limit\"))\n \tif err != nil {\n-\t\thttp.Error(w, err.Error(), http.StatusBadRequest)\n+\t\thttp.Error(w, \"bad limit: \"+err.Error(), http.StatusBadRequest)\n \t\treturn\n \t}\n*** End Patch\n"
	g.add(cs{class: class, id: "envelope-imagined-function", note: "a hunk for a function the file does not have",
		files: []doc{server}, call: patchCall(hunkFake), refuse: refuse("not_found", `\blines? \d+`)})
	other := unified(view{}, "git", part{d: py, hunks: []hunk{h(pReserve)}})
	other = strings.ReplaceAll(other, "inventory.py", "server.go")
	g.add(cs{class: class, id: "unified-wrong-file", note: "a hunk meant for another file",
		files: []doc{server, py}, call: patchCall(other), refuse: refuse("not_found", `\blines? \d+`)})
	o1, n1 := view{}.oldNew(server, sRoute)
	g.add(cs{class: class, id: "multi-second-missing", note: "multi_replace_string whose second edit matches nothing: nothing is written",
		files: []doc{server}, call: multiCall(multiEdit("server.go", o1, n1), multiEdit("server.go", "\ts.metrics.Inc(\"get\")", "\ts.metrics.Inc(\"records.get\")")),
		refuse: refuse("not_found", `\blines? \d+`, `edit 2|edits\[1\]`)})
	g.add(cs{class: class, id: "comment-reworded", note: "a comment quoted from memory, reworded",
		files: []doc{server}, call: replaceCall("server.go", "// writeJSON writes v as the JSON response body.", "// writeJSON encodes v as JSON."),
		refuse: refuse("not_found", lineRe(ln(server, "// writeJSON encodes")))})
	g.add(cs{class: class, id: "extra-line-in-middle", note: "old_string has a line more than the file",
		files: []doc{py}, call: replaceCall("inventory.py", "        item = self.find(sku)\n        if item is None:\n            raise KeyError(sku)\n        self._check(item)\n        if count <= 0:", "x"),
		refuse: refuse("not_found", lineRe(ln(py, "raise KeyError(sku)")+1))})
}
