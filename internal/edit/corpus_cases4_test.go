package edit_test

// A third batch, written last: edits the ladder had not seen on the languages models edit most
// (TypeScript, YAML, Markdown, Python, Go, Latin-1 files), each with two or three failures at
// once, and refusals among them.
func heldOutTwo(g *gen) {
	ts, ci, cmp, guide, inv, views, store, fr, lat, mk := g.file("client.ts"), g.file("ci.yml"), g.file("compose.yml"), g.file("GUIDE.md"),
		g.file("inventory.py"), g.file("views.py"), g.file("store.go"), g.file("messages_fr.properties").encoded("latin-1"),
		g.file("legacy_fr.py").encoded("latin-1"), g.file("Makefile")
	r := func(class, id, note string, d doc, e ed, v view) {
		g.replaceCase(class, "held-out-2-"+id, note, d, e, v)
	}

	o, n := view{num: &numbering{width: 2, new: "kept"}, line: rescale(2, 4)}.oldNew(ts, tCatch)
	g.add(cs{class: "line_numbers", id: "held-out-2-ts-ranged-numbers-scale", note: "numbers from a read of lines 55-70, and four-space indentation",
		files: []doc{ts}, reads: []map[string]any{{"path": ts.path, "line_numbers": true, "start_line": 55, "end_line": 70}},
		call: replaceCall(ts.path, o, n), want: []doc{ts.apply(tCatch)}})
	r("json_escapes", "ts-template-literal-escaped", "an over-escaped TypeScript arrow function", ts, tSort, view{whole: jsonEscaped})
	r("blank_lines", "yaml-lint-extra-blank", "a blank line the workflow does not have, and spaces at line ends", ci, yLint, view{extraBlank: 2, copied: addTrailing})
	cc := cmp.crlf()
	off := h(cDbImg)
	off.off = -4
	g.patchCase("patch_context", "held-out-2-yaml-crlf-numbers-off", "a CRLF compose file, LF hunk, numbers four lines off", []doc{cc},
		unified(view{}, "git", part{d: cc, hunks: []hunk{off}}), cc.apply(cDbImg))
	mRel := ed{at: "make release VERSION", n: 1, repl: L("make release VERSION=1.5.0 SIGN=1")}
	g.patchCase("patch_context", "held-out-2-md-code-fence", "an envelope inside a Markdown code fence", []doc{guide},
		envelope(view{}, part{d: guide, hunks: []hunk{h(mRel)}}), guide.apply(mRel))
	r("unicode_punct", "md-heading-nbsp", "a heading copied from a rendered page: no-break spaces", g.file("CHANGELOG.md"), mdHead,
		view{copied: func(s string) string { return replaceFirst(plainPunct(s), " ", "\u00a0") }})
	r("unicode_punct", "py-first-line-bare-curly", "a copy starting after the indentation, with typographic quotes", inv, pLabel, view{firstBare: true, line: curlyQuotes})
	vCancel := ed{at: "if booking.owner != request.user", n: 2,
		repl: R(L(`        if booking.owner != request.user and not getattr(request, "is_admin", False):`), K(1))}
	r("indentation", "py-tabs-for-spaces", "a Python method body typed with tabs", views, vCancel, view{line: spacesToTabs(4)})
	se1 := ed{at: "return ErrConflict", n: 1, repl: L("\t\treturn fmt.Errorf(\"update customer %d: %w\", c.ID, ErrConflict)")}
	se2 := ed{at: "defer tx.Rollback()", n: 1, repl: L("\tdefer tx.Rollback() //nolint:errcheck")}
	o1, n1 := view{line: tabsTo(4)}.oldNew(store, se1)
	o2, n2 := view{num: &numbering{width: 4, new: "kept"}}.oldNew(store, se2)
	g.add(cs{class: "indentation", id: "held-out-2-go-multi-drift-and-numbers", note: "two edits of one file: one with spaces for tabs, one numbered",
		files: []doc{store}, reads: []map[string]any{{"path": store.path, "line_numbers": true}},
		call: multiCall(multiEdit(store.path, o1, n1), multiEdit(store.path, o2, n2)), want: []doc{store.apply(se1, se2)}})
	st := h(ed{at: "if o.Total <= 0 {", n: 3, repl: R(K(0), L("\t\treturn fmt.Errorf(\"place order: total must be positive, got %d cents\", o.Total)"), K(2))})
	st.anchor = "func (s *Store) PlaceOrder(ctx context.Context, o *Order) error {"
	st.skip = 1
	g.patchCase("patch_context", "held-out-2-go-anchor-skip-drift", "anchored, a context line left out, spaces for tabs", []doc{store},
		envelope(view{line: tabsTo(4)}, part{d: store, hunks: []hunk{st}}),
		store.apply(ed{at: "if o.Total <= 0 {", n: 3, repl: R(K(0), L("\t\treturn fmt.Errorf(\"place order: total must be positive, got %d cents\", o.Total)"), K(2))}))
	g.patchCase("encoding", "held-out-2-latin1-unified-fffd-drift", "a Latin-1 file, hunk copied from read_file, two-space indentation", []doc{lat},
		unified(view{copied: readView(lat), line: rescale(4, 2)}, "git", part{d: lat, hunks: []hunk{h(lComment)}}), lat.apply(lComment))
	g.add(cs{class: "encoding", id: "held-out-2-latin1-insert-accented-pattern", note: "insert_edit before a pattern that has an accent",
		files: []doc{fr}, call: map[string]any{"operation": "insert_edit", "path": fr.path, "before_pattern": "menu.edit=Édition", "content": "menu.view=Affichage\n"},
		want: []doc{fr.apply(ed{at: "menu.edit=", n: 1, repl: R(L("menu.view=Affichage"), K(0))})}})
	g.add(cs{class: "ambiguous", id: "held-out-2-refuse-ts-closing-brace", note: "a closing brace with other indentation, in many places",
		files: []doc{ts}, call: replaceCall(ts.path, "   }\n", "   }\n   // done\n"), refuse: refuse("ambiguous", `\blines \d+, \d+`)})
	g.add(cs{class: "ambiguous", id: "held-out-2-refuse-yaml-image", note: "image: with other indentation, in three services",
		files: []doc{cmp}, call: replaceCall(cmp.path, "  image: redis:7\n  image: postgres:16", "x"), refuse: refuse("not_found", `\blines? \d+`)})
	memo := inv.setLine(ln(inv, "item.quantity -= count")-1, "        item.quantity = item.quantity - count")
	o, n = view{line: rescale(4, 2)}.oldNew(inv, pReserve)
	g.add(cs{class: "stale", id: "held-out-2-refuse-py-stale-and-drift", note: "a stale line in a re-indented copy",
		files: []doc{memo}, call: replaceCall(inv.path, o, n), refuse: refuse("not_found", lineRe(ln(inv, "item.quantity -= count")))})
	g.add(cs{class: "encoding", id: "held-out-2-refuse-latin1-oe", note: "œ is in Windows-1252, not in Latin-1",
		files: []doc{fr}, call: replaceCall(fr.path, "menu.help=Aide", "menu.help=Aide et manœuvres"), refuse: refuse("unencodable", `U\+0153`, lineRe(ln(fr, "menu.help=")))})
	two := h(tHeaders)
	two.stale = map[int]string{0: "  private headerz(): Record<string, string> {", 1: "    const h: Record<string, string> = {};"}
	g.add(cs{class: "patch_context", id: "held-out-2-refuse-two-stale-context-drift", note: "two stale context lines, and four-space indentation",
		files: []doc{ts}, call: patchCall(envelope(view{line: rescale(2, 4)}, part{d: ts, hunks: []hunk{two}})), refuse: refuse("not_found", `\blines? \d+`)})
	sq := ed{at: "prefix+\"%\", limit)", n: 1, repl: L("\t\tstrings.ReplaceAll(prefix, \"%\", `\\%`)+\"%\", limit)")}
	r("json_escapes", "go-sql-escaped", "an over-escaped Go line with a raw string and %", store, sq, view{whole: jsonEscaped})
	ts2 := ts.clone()
	o, n = view{num: &numbering{width: 4, new: "none"}, dropBlank: true}.oldNew(ts2, tCtor)
	g.add(cs{class: "blank_lines", id: "held-out-2-ts-numbered-without-blank", note: "numbered, and the blank line left out",
		files: []doc{ts2}, call: replaceCall(ts.path, o, n), want: []doc{ts2.apply(tCtor)}})
	mc := mk.crlf().noFinalNewline()
	g.patchCase("final_newline", "held-out-2-makefile-crlf-envelope", "an envelope on the last line of a CRLF Makefile without a final newline", []doc{mc},
		envelope(view{line: tabsTo(4)}, part{d: mc, hunks: []hunk{h(mkClean)}}), mc.apply(mkClean))
}

func replaceFirst(s, old, nw string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + nw + s[i+len(old):]
		}
	}
	return s
}
