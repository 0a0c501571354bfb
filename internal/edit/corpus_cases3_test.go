package edit_test

import (
	"fmt"
	"strings"
)

// A second batch of cases on files and edits of their own, several failures at once, written
// after the ladder was first tuned on the cases before them: it checks that the ladder learnt
// the failures, not the first batch. Each case goes into the class of its main failure.

// compose applies rewrites in order.
func compose(fs ...func(string) string) func(string) string {
	return func(s string) string {
		for _, f := range fs {
			s = f(s)
		}
		return s
	}
}

var (
	// OrderService.java (Java, four spaces)
	jPlace = ed{at: "if (items == null || items.isEmpty())", n: 3,
		repl: R(K(0), L(`            throw new IllegalArgumentException("an order needs at least one line item");`), K(2))}
	jOpen = ed{at: "public List<Order> openOrders", n: 9,
		repl: R(K(0), L("        List<Order> result = new ArrayList<>();", "        repository.findByCustomer(customer).stream()", "            .filter(order -> !order.isClosed())", "            .forEach(result::add);"), K(7, 8))}
	jRefund = ed{at: "BigDecimal amount = order.getTotal();", n: 4,
		repl: R(K(0, 1, 2), L("        log.info(\"refunded order {}\", order.getId());"), K(3))}
	jCtor = ed{at: "this.calculator = calculator;", n: 4,
		repl: R(K(0, 1, 2), L("    public OrderService(OrderRepository repository) {", "        this(repository, new PriceCalculator());", "    }", ""), K(3))}

	// settings.py (Python dictionaries)
	yDB    = ed{at: `"PORT": int(`, n: 2, repl: R(K(0), L(`        "CONN_MAX_AGE": 60,`), K(1))}
	yHost  = ed{at: `"HOST": os.environ.get("DB_HOST"`, n: 1, repl: L(`        "HOST": os.environ.get("DB_HOST", "db"),`)}
	yCache = ed{at: `"TIMEOUT": 300,`, n: 1, repl: L(`        "TIMEOUT": int(os.environ.get("CACHE_TIMEOUT", "300")),`)}
	yFeat  = ed{at: "def feature_enabled(name):", n: 3,
		repl: R(K(0, 1), L(`    return name.lower() in [f.strip().lower() for f in flags.split(",") if f.strip()]`))}
	yLog = ed{at: `"root": {"handlers": ["console"], "level": "INFO"},`, n: 1,
		repl: L(`    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},`)}
	yBlock = ed{at: `"PORT": int(`, n: 6, repl: R(K(0, 1, 2, 3, 4, 5), L(`CACHE_PREFIX = "reports"`, ""))}

	// compose.yml
	cWebEnv = ed{at: "LOG_LEVEL: info", n: 1, repl: R(K(0), L("      SENTRY_DSN: ${SENTRY_DSN:-}"))}
	cDbImg  = ed{at: "image: postgres:16", n: 1, repl: L("    image: postgres:17")}
	cSvc    = ed{at: "      - cache", n: 4, repl: R(K(0, 1, 2), L("    image: postgres:16.4"))}
	cLast   = ed{at: "  db-data:", n: 1, repl: R(K(0), L("  cache-data:"))}

	// CHANGELOG.md
	mdAdded = ed{at: "- A `--dry-run` flag", n: 1, repl: R(K(0), L("- Reports can be filtered by region."))}
	mdFixed = ed{at: "- Dates before 1970", n: 2,
		repl: R(K(0), L("- The importer no longer stops at the first bad row \u2014 it reports them all, with their line numbers."))}
	mdTable = ed{at: "| 1.7     | until June |", n: 1, repl: L("| 1.7     | until June 2025 |")}
	mdHead  = ed{at: "## [1.8.0]", n: 1, repl: L("## [1.8.0] \u2013 2025-02-12")}

	// query.go (Go, tabs, a raw string and struct tags)
	qScan = ed{at: "if err := rows.Scan(&r.Region", n: 3,
		repl: R(K(0), L("\t\t\treturn nil, fmt.Errorf(\"monthly report: scan: %w\", err)"), K(2))}
	qOrder  = ed{at: "GROUP BY region, month", n: 2, repl: R(K(0), L("ORDER BY month, region`"))}
	qCSV    = ed{at: `fmt.Fprintf(&b, "%s,%s,%.2f\n"`, n: 1, repl: L(`		fmt.Fprintf(&b, "%s,%s,%.2f\n", csvField(r.Region), r.Month, r.Total)`)}
	qStruct = ed{at: "Total  float64", n: 1, repl: R(K(0), L("\tCount  int     `json:\"count\" db:\"count\"`"))}

	// legacy_fr.py (Latin-1)
	lLib     = ed{at: `return "Facture pour`, n: 1, repl: L(`    return "Facture pour %s : %.2f euros (TTC)" % (client, montant)`)}
	lEch     = ed{at: `raise ValueError("le d`, n: 1, repl: L(`        raise ValueError("le délai doit être strictement positif")`)}
	lComment = ed{at: "# Le libell", n: 1, repl: L("    # Le libellé apparaît sur la facture imprimée et dans l'export")}
)

func heldOut(g *gen) {
	java, set, yml, md, q := g.file("OrderService.java"), g.file("settings.py"), g.file("compose.yml"), g.file("CHANGELOG.md"), g.file("query.go")
	lat := g.file("legacy_fr.py").encoded("latin-1")
	r := func(class, id, note string, d doc, e ed, v view) { g.replaceCase(class, "held-out-"+id, note, d, e, v) }

	// Indentation.
	r("indentation", "java-scale-4-as-2", "Java re-indented at two spaces", java, jOpen, view{line: rescale(4, 2)})
	r("indentation", "java-tabs", "Java re-indented with tabs", java, jPlace, view{line: spacesToTabs(4)})
	r("indentation", "java-one-level-less", "Java method body one level less", java, jRefund, view{line: shift("    ", true)})
	r("indentation", "python-dict-one-level-more", "Python function one level more", set, yFeat, view{line: shift("    ", false)})
	r("indentation", "go-tabs-as-4", "Go with spaces for tabs, around a raw string", q, qScan, view{line: tabsTo(4)})
	r("indentation", "go-single-line-tabs-as-2", "a one-line Go edit whose literal holds \\n", q, qCSV, view{line: tabsTo(2)})
	r("indentation", "yaml-scale-2-as-4", "YAML at four spaces per level", yml, cWebEnv, view{line: rescale(2, 4)})
	// Several failures at once.
	vnum := view{num: &numbering{width: 4, new: "kept"}, line: rescale(4, 2)}
	o, n := vnum.oldNew(java, jOpen)
	g.add(cs{class: "line_numbers", id: "held-out-java-numbered-and-rescaled", note: "numbered and re-indented at two spaces",
		files: []doc{java}, reads: []map[string]any{{"path": java.path, "line_numbers": true}}, call: replaceCall(java.path, o, n), want: []doc{java.apply(jOpen)}})
	qc := q.crlf()
	o, n = view{num: &numbering{width: 4, new: "none"}, line: tabsTo(4)}.oldNew(qc, qScan)
	g.add(cs{class: "line_numbers", id: "held-out-go-crlf-numbered-spaces", note: "CRLF file, numbered copy with spaces for tabs",
		files: []doc{qc}, call: replaceCall(q.path, o, n), want: []doc{qc.apply(qScan)}})
	r("json_escapes", "python-escaped-one-level-less", "over-escaped and one level less", set, yDB, view{whole: jsonEscaped, line: shift("    ", true)})
	r("unicode_punct", "md-ascii-for-dash-and-quotes", "ASCII for the changelog's dash and quotes", md, mdFixed, view{line: plainPunct})
	r("unicode_punct", "md-en-dash-heading", "a heading whose en dash the copy typed as a hyphen", md, mdHead, view{line: plainPunct})
	r("blank_lines", "md-extra-blank", "a blank line the changelog does not have", md, mdFixed, view{extraBlank: 1})
	r("blank_lines", "yaml-services-without-blank", "YAML services copied without the blank line between them", yml, cSvc, view{dropBlank: true})
	r("blank_lines", "python-dicts-without-blank", "Python settings without the blank line before the next block", set, yBlock, view{dropBlank: true})
	r("blank_lines", "java-extra-blank", "a Java constructor copied with an extra blank line", java, jRefund, view{extraBlank: 2})
	// Latin-1 Python with a coding line.
	r("encoding", "latin1-python-ascii-edit", "an ASCII edit in a Latin-1 Python file", lat, lLib, view{})
	r("encoding", "latin1-python-accented", "an accented line of a Latin-1 Python file", lat, lEch, view{})
	r("encoding", "latin1-python-escaped", "over-escaped edit of a Latin-1 file", lat, lEch, view{whole: jsonEscaped})
	o, _ = view{copied: readView(lat)}.oldNew(lat, lComment)
	_, n = view{}.oldNew(lat, lComment)
	g.add(cs{class: "encoding", id: "held-out-latin1-python-fffd", note: "old_string copied from read_file with U+FFFD, new_string typed",
		files: []doc{lat}, call: replaceCall(lat.path, o, n), want: []doc{lat.apply(lComment)}})
	g.patchCase("encoding", "held-out-latin1-python-envelope", "an envelope on a Latin-1 Python file", []doc{lat},
		envelope(view{}, part{d: lat, hunks: []hunk{h(lEch)}}), lat.apply(lEch))
	g.add(cs{class: "encoding", id: "held-out-latin1-python-insert", note: "insert_edit of an accented comment into a Latin-1 file",
		files: []doc{lat}, call: map[string]any{"operation": "insert_edit", "path": lat.path, "before_pattern": "TVA = 0.20", "content": "# Taux de TVA appliqué par défaut\n"},
		want: []doc{lat.apply(ed{at: "TVA = 0.20", n: 1, repl: R(L("# Taux de TVA appliqué par défaut"), K(0))})}})
	g.add(cs{class: "encoding", id: "held-out-refuse-latin1-python-emoji", note: "an emoji for a Latin-1 file",
		files: []doc{lat}, call: replaceCall(lat.path, "TVA = 0.20", "TVA = 0.20  # 💶"), refuse: refuse("unencodable", `U\+1F4B6`, lineRe(ln(lat, "TVA = 0.20")))})
	// Patches.
	two := []hunk{h(jPlace), h(jRefund)}
	for i := range two {
		two[i].off = 5
	}
	g.patchCase("patch_context", "held-out-java-unified-numbers-and-scale", "numbers five lines off and two-space indentation",
		[]doc{java}, unified(view{line: rescale(4, 2)}, "git", part{d: java, hunks: two}), java.apply(jPlace, jRefund))
	an := h(jRefund)
	an.anchor = "public BigDecimal refund(Order order) {"
	g.patchCase("patch_context", "held-out-java-envelope-anchor", "envelope anchored at the method", []doc{java},
		envelope(view{}, part{d: java, hunks: []hunk{an}}), java.apply(jRefund))
	sk := h(qScan)
	sk.skip = 1
	g.patchCase("patch_overlap", "held-out-go-envelope-out-of-order-skipped", "hunks bottom to top, one leaving out a context line", []doc{q},
		envelope(view{}, part{d: q, hunks: []hunk{h(qCSV), sk, h(qStruct)}}), q.apply(qStruct, qScan, qCSV))
	g.patchCase("patch_overlap", "held-out-python-adjacent-hunks", "two hunks on adjacent lines, each with full context", []doc{set},
		unified(view{}, "ab", part{d: set, hunks: []hunk{h(yHost), h(yDB)}}), set.apply(yHost, yDB))
	g.patchCase("patch_context", "held-out-yaml-envelope", "an envelope on YAML", []doc{yml},
		envelope(view{}, part{d: yml, hunks: []hunk{h(cDbImg), h(cWebEnv)}}), yml.apply(cWebEnv, cDbImg))
	g.patchCase("unicode_punct", "held-out-md-envelope-ascii", "envelope context typed in ASCII", []doc{md},
		envelope(view{line: plainPunct}, part{d: md, hunks: []hunk{h(mdFixed)}}), md.apply(mdFixed))
	big := unified(view{}, "git", part{d: java, hunks: []hunk{h(jCtor), h(jPlace), h(jOpen), h(jRefund)}}, part{d: q, hunks: []hunk{h(qStruct), h(qOrder), h(qScan), h(qCSV)}},
		part{d: set, hunks: []hunk{h(yDB), h(yCache), h(yLog), h(yFeat)}})
	if len(big) >= 4000 {
		g.patchCase("patch_large", "held-out-three-files", "twelve hunks over Java, Go and Python", []doc{java, q, set}, big,
			java.apply(jCtor, jPlace, jOpen, jRefund), q.apply(qStruct, qOrder, qScan, qCSV), set.apply(yDB, yCache, yLog, yFeat))
	} else {
		panic(fmt.Sprintf("held-out large patch is %d characters", len(big)))
	}
	// Refusals.
	g.add(cs{class: "ambiguous", id: "held-out-refuse-python-dict-key", note: "a dictionary key in two settings blocks",
		files: []doc{set}, call: replaceCall(set.path, `    "default": {`, `    "primary": {`),
		refuse: refuse("ambiguous", linesRe(nthLine(set, `"default": {`, 1), nthLine(set, `"default": {`, 2)))})
	g.add(cs{class: "ambiguous", id: "held-out-refuse-yaml-key", note: "environment: in two services",
		files: []doc{yml}, call: replaceCall(yml.path, "    environment:\n", "    env_file: .env\n    environment:\n"),
		refuse: refuse("ambiguous", linesRe(nthLine(yml, "environment:", 1), nthLine(yml, "environment:", 2)))})
	g.add(cs{class: "ambiguous", id: "held-out-refuse-go-line-indentation", note: "a return line found at two depths once indentation is ignored",
		files: []doc{q}, call: replaceCall(q.path, `    return nil, fmt.Errorf("monthly report: %w", err)`, `    return nil, fmt.Errorf("report: %w", err)`),
		refuse: refuse("ambiguous", linesRe(nthLine(q, `"monthly report: %w"`, 1), nthLine(q, `"monthly report: %w"`, 2)))})
	g.add(cs{class: "ambiguous", id: "held-out-refuse-md-heading", note: "a heading in two releases",
		files: []doc{md}, call: replaceCall(md.path, "### Fixed", "### Bug fixes"),
		refuse: refuse("ambiguous", linesRe(nthLine(md, "### Fixed", 1), nthLine(md, "### Fixed", 2)))})
	amb := "*** Begin Patch\n*** Update File: settings.py\n@@\n     \"default\": {\n+        # the primary one\n*** End Patch\n"
	g.add(cs{class: "ambiguous", id: "held-out-refuse-envelope-insertion", note: "an insertion anchored on a line that occurs twice",
		files: []doc{set}, call: patchCall(amb), refuse: refuse("ambiguous", linesRe(nthLine(set, `"default": {`, 1), nthLine(set, `"default": {`, 2)))})
	renamed := strings.Replace(func() string { o, _ := view{}.oldNew(java, jRefund); return o }(), "order.close();", "order.markClosed();", 1)
	g.add(cs{class: "not_found", id: "held-out-java-renamed-call", note: "old_string calls a method by a name it no longer has",
		files: []doc{java}, call: replaceCall(java.path, renamed, "x"), refuse: refuse("not_found", lineRe(ln(java, "order.close();")))})
	newer := yml.setLine(ln(yml, "image: postgres:16")-1, "    image: postgres:16.2")
	o, n = view{}.oldNew(yml, cWebEnv)
	g.add(cs{class: "stale", id: "held-out-compose-changed", note: "compose.yml changed after the read",
		files: []doc{yml}, disk: []doc{newer}, call: replaceCall(yml.path, o, n), refuse: refuse("stale", lineRe(ln(yml, "LOG_LEVEL: info")))})
	// Line numbers, blank lines, trailing whitespace, punctuation, final newline, insert.
	vr := view{num: &numbering{width: 2, new: "kept"}}
	o, n = vr.oldNew(java, jRefund)
	g.add(cs{class: "line_numbers", id: "held-out-java-ranged", note: "numbers from a read of lines 40-53",
		files: []doc{java}, reads: []map[string]any{{"path": java.path, "line_numbers": true, "start_line": 40, "end_line": 53}},
		call: replaceCall(java.path, o, n), want: []doc{java.apply(jRefund)}})
	o, n = view{num: &numbering{width: 4, new: "none"}}.oldNew(md, mdTable)
	g.add(cs{class: "line_numbers", id: "held-out-md-table-numbered", note: "a numbered Markdown table row",
		files: []doc{md}, call: replaceCall(md.path, o, n), want: []doc{md.apply(mdTable)}})
	r("blank_lines", "java-ctor-without-blank", "constructor and method copied without the blank line between", java, jCtor, view{dropBlank: true})
	jt := java.setLine(ln(java, "this.calculator = calculator;")+1, "    ")
	r("trailing_whitespace", "java-blank-with-indentation", "a blank line holding the IDE's indentation", jt, jCtor, view{copied: trimRight})
	mt := md.setLine(ln(md, "- Export of reports as CSV.")-1, "- Export of reports as CSV.  ")
	r("trailing_whitespace", "md-kept-hard-break", "a hard line break on a line the copy did not change", mt, ed{at: "- Export of reports", n: 2, repl: R(K(0), L("- A `--dry-run` flag for the importer and the exporter."))}, view{copied: trimRight})
	r("unicode_punct", "go-curly-in-format-string", "typographic quotes in a Go format call", q, qCSV, view{line: curlyQuotes})
	r("json_escapes", "go-literal-newline-escaped", "over-escaped line whose Go literal holds \\n", q, qCSV, view{whole: jsonEscaped})
	r("json_escapes", "python-quotes-escaped", "only the quotes escaped", set, yLog, view{whole: quotesEscaped})
	ymlNoEOL := yml.noFinalNewline()
	r("final_newline", "yaml-last-line", "a line added after the last line of a file without a final newline", ymlNoEOL, cLast, view{})
	g.add(cs{class: "insert_edit", id: "held-out-java-after-field", note: "insert_edit after a field",
		files: []doc{java}, call: map[string]any{"operation": "insert_edit", "path": java.path, "after_pattern": "private final PriceCalculator calculator;", "content": "    private final Clock clock = Clock.systemUTC();\n"},
		want: []doc{java.apply(ed{at: "private final PriceCalculator calculator;", n: 1, repl: R(K(0), L("    private final Clock clock = Clock.systemUTC();"))})}})
	jc := java.crlf()
	g.patchCase("line_endings", "held-out-java-crlf-envelope", "an envelope with LF lines on a CRLF Java file", []doc{jc},
		envelope(view{}, part{d: jc, hunks: []hunk{h(jOpen)}}), jc.apply(jOpen))
}

// collapseInner is a copy that loses column alignment: runs of spaces inside a line become one.
func collapseInner(s string) string {
	ind, rest := leading(s)
	f := strings.Fields(rest)
	out := ind + strings.Join(f, " ")
	if strings.HasSuffix(rest, " ") && len(f) > 0 {
		out += " "
	}
	return out
}

// classAlignment: copies that lose the column alignment gofmt, Makefiles and Markdown tables
// keep (models re-type "store   Store" as "store Store").
func classAlignment(g *gen) {
	const class = "alignment"
	server, mk, md := g.file("server.go"), g.file("Makefile"), g.file("CHANGELOG.md")
	v := view{line: collapseInner}
	g.replaceCase(class, "go-struct-fields", "gofmt-aligned struct fields copied with single spaces", server, sStruct, v)
	g.replaceCase(class, "go-composite-literal", "aligned composite literal keys copied with single spaces", server, sNew, v)
	g.replaceCase(class, "md-table-row", "a Markdown table row without its padding", md, mdTable, v)
	g.replaceCase(class, "makefile-variables", "aligned Makefile variables", mk, ed{at: "BINARY  := bin/server", n: 2, repl: R(L("BINARY  := bin/api"), K(1))}, v)
	// A new line the copy writes unaligned stays as written: its alignment cannot be known.
	g.replaceCase(class, "go-struct-tags", "struct tags copied without alignment", g.file("query.go"),
		ed{at: "Total  float64", n: 1, repl: R(K(0), L("\tCount int `json:\"count\" db:\"count\"`"))}, v)
	g.replaceCase(class, "go-struct-fields-spaces-for-tabs", "alignment lost and indentation re-typed with spaces", server, sStruct, view{line: compose(collapseInner, tabsTo(4))})
	g.patchCase(class, "envelope-go-literal", "envelope context without alignment", []doc{server},
		envelope(v, part{d: server, hunks: []hunk{h(sNew)}}), server.apply(sNew))
	g.patchCase(class, "unified-md-table", "unified diff of a table without its padding", []doc{md},
		unified(v, "ab", part{d: md, hunks: []hunk{h(mdTable)}}), md.apply(mdTable))
	cfg := parseDoc("config.go", "package config\n\nvar (\n\tname    = \"api\"\n\tport    = 8080\n)\n\nvar (\n\tname  = \"api\"\n\tport  = 9090\n)\n")
	g.add(cs{class: class, id: "value-keeps-alignment", note: "a changed value keeps the file's alignment",
		files: []doc{cfg}, call: replaceCall("config.go", "\tport = 8080\n", "\tport = 8081\n"),
		want: []doc{cfg.setLine(4, "\tport    = 8081")}})
	g.add(cs{class: class, id: "refuse-port-twice", note: "without alignment a key matches two blocks",
		files: []doc{cfg}, call: replaceCall("config.go", "\tname = \"api\"", "\tname = \"web\""),
		refuse: refuse("ambiguous", linesRe(4, 9))})
}

// patchVariants: hunks whose lines carry read_file's numbers or escapes (the quotes of a patch
// passed through one JSON encoding too many).
func patchVariants(g *gen) {
	server, py, ts := g.file("server.go"), g.file("inventory.py"), g.file("client.ts")
	hunkLines := func(p string, f func(kind byte, text string) string) string {
		var out []string
		for _, l := range strings.Split(p, "\n") {
			if l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+') && !strings.HasPrefix(l, "--- ") && !strings.HasPrefix(l, "+++ ") {
				l = l[:1] + f(l[0], l[1:])
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	esc := func(_ byte, t string) string { return strings.ReplaceAll(t, `"`, `\"`) }
	g.patchCase("json_escapes", "envelope-quotes-escaped-in-lines", "an envelope whose lines have \\\" for their quotes", []doc{server},
		hunkLines(envelope(view{}, part{d: server, hunks: []hunk{h(sGet)}}), esc), server.apply(sGet))
	g.patchCase("json_escapes", "unified-quotes-escaped-in-lines", "a unified diff whose lines have \\\" for their quotes", []doc{ts},
		hunkLines(unified(view{}, "git", part{d: ts, hunks: []hunk{h(tHeaders)}}), esc), ts.apply(tHeaders))
	numbered := func(d doc, e ed) string {
		s := e.start(d) - 3
		n := 0
		return hunkLines(envelope(view{}, part{d: d, hunks: []hunk{h(e)}}), func(kind byte, t string) string {
			if kind == '+' {
				return t
			}
			n++
			return fmt.Sprintf("%4d\t%s", s+n, t)
		})
	}
	g.patchCase("line_numbers", "envelope-numbered-lines", "envelope context and removed lines copied with read_file's numbers", []doc{py},
		numbered(py, pReserve), py.apply(pReserve))
	g.patchCase("line_numbers", "envelope-numbered-go", "a numbered envelope on a Go file", []doc{server},
		numbered(server, sSwitch), server.apply(sSwitch))
}
