package consolidated

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"toolhost/authz"
	"toolhost/internal/edit"
)

func (f *fileTool) createFile(ctx context.Context, c *Call, a *fileCreateArgs) (*Result, error) {
	t, err := f.openWrite(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	name := f.display(t, t.Rel)
	data, err := edit.EncodeContent(a.Content, a.Encoding)
	if err != nil {
		return nil, encodeError(err)
	}
	opt := f.options(c, t, a.DryRun, t.Rel)
	// Text in another encoding is written as encoded; only UTF-8 text takes on the replaced
	// file's CRLF endings and BOM.
	opt.Verbatim = a.Encoding != "" && a.Encoding != edit.EncodingUTF8
	res, err := edit.CreateFile(ctx, t.Root, t.Rel, data, edit.WriteMode(a.Mode), opt)
	if err != nil {
		f.forgetDeleted(c, t, err)
		return nil, f.editError(name, "path", err)
	}
	if !a.DryRun {
		f.remember(c, t, res.Files)
	}
	lines := strings.Count(a.Content, "\n")
	if a.Content != "" && !strings.HasSuffix(a.Content, "\n") {
		lines++
	}
	enc := ""
	if opt.Verbatim {
		enc = ", " + a.Encoding
	}
	switch {
	case len(res.Files) == 1 && res.Files[0].Op == edit.OpAdd:
		// The model has the content it just sent; echoing it as a diff would only cost tokens.
		verb := "created"
		if a.DryRun {
			verb = "dry run, nothing written: would create"
		}
		return f.writeResult(t, fmt.Sprintf("%s %s (%d lines, %d bytes%s)", verb, name, lines, len(data), enc), &edit.Result{Files: res.Files, DryRun: a.DryRun}), nil
	case res.Diff == "":
		return f.writeResult(t, name+" unchanged: it already has this content", res), nil
	case a.Mode == string(edit.ModeAppend):
		return f.writeResult(t, dryPrefix(a.DryRun)+fmt.Sprintf("appended %d lines to %s", lines, name), res), nil
	}
	size, kept := len(data), ""
	if len(res.Files) == 1 && res.Files[0].Bytes != size {
		// The engine gave the content the file's CRLF endings, BOM or both; the extra bytes
		// tell which.
		extra, nl := res.Files[0].Bytes-size, strings.Count(a.Content, "\n")
		switch extra {
		case nl:
			kept = "; kept the file's CRLF line endings"
		case 3:
			kept = "; kept the file's BOM"
		default:
			kept = "; kept the file's CRLF line endings and BOM"
		}
		size = res.Files[0].Bytes
	}
	return f.writeResult(t, dryPrefix(a.DryRun)+fmt.Sprintf("overwrote %s (%d lines, %d bytes%s%s)", name, lines, size, enc, kept), res), nil
}

// dryPrefix starts the answer to a dry run, which must not read as a write that happened.
func dryPrefix(dryRun bool) string {
	if dryRun {
		return "dry run, nothing written: "
	}
	return ""
}

// encodeError maps a create_file encoding failure to the parameter at fault.
func encodeError(err error) error {
	var ee *edit.EncodeError
	if errors.As(err, &ee) {
		return &ToolError{Code: CodeUnencodable, Param: "content", Message: err.Error(),
			Next: fmt.Sprintf("set encoding %s, or replace the characters %s cannot hold", ee.Suggest, ee.Encoding)}
	}
	return &ToolError{Code: CodeInvalidValue, Param: "content", Message: strings.TrimPrefix(err.Error(), edit.ErrInvalidArgument.Error()+": ")}
}

func (f *fileTool) replaceString(ctx context.Context, c *Call, a *fileReplaceArgs) (*Result, error) {
	if a.OldString == "" {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "old_string", Message: "old_string is empty",
			Next: "copy the exact text to replace from read_file; to write a new file use create_file, to add lines use insert_edit"}
	}
	t, err := f.openWrite(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	name := f.display(t, t.Rel)
	res, err := edit.ReplaceInFile(ctx, t.Root, t.Rel, edit.Replacement{
		OldString: a.OldString, NewString: a.NewString, ReplaceAll: a.ReplaceAll, ExpectedReplacements: a.ExpectedReplacements,
	}, f.options(c, t, a.DryRun, t.Rel))
	if err != nil {
		f.forgetDeleted(c, t, err)
		return nil, f.suggest(ctx, c, f.editError(name, "old_string", err), a.Path)
	}
	if !a.DryRun {
		f.remember(c, t, res.Files)
	}
	r := f.writeResult(t, dryPrefix(a.DryRun)+name+": "+replaceOutcome(res.Count, res.Lines, res.Rung, res.Adapted, res.Undid), &res.Result)
	return r, nil
}

// replaceOutcome says how many replacements were made where, how tolerant the match had to be,
// and how new_string was written in the file's style to fit there.
func replaceOutcome(count int, lines []int, rung edit.Rung, adapted, undid []string) string {
	s := fmt.Sprintf("%d replacement", count)
	if count != 1 {
		s += "s"
	}
	if len(lines) > 0 {
		s += " at " + edit.FormatLines(lines)
	}
	var why []string
	if len(undid) > 0 {
		// The model learns what its copy carried, so its next one leaves it out.
		why = append(why, "read old_string without "+strings.Join(undid, " and "))
	}
	if rung != "" && rung != edit.RungExact {
		why = append(why, "matched ignoring "+strings.ReplaceAll(string(rung), "_", " "))
	}
	switch {
	case len(why) > 0:
		s += " (" + strings.Join(why, "; ") + adaptedNote(adapted) + ")"
	case len(adapted) > 0:
		s += " (" + strings.TrimPrefix(adaptedNote(adapted), "; ") + ")"
	}
	return s
}

// adaptedNote tells the model that the file holds new_string in the file's style, not as sent,
// so its next old_string copies the file rather than its own text.
func adaptedNote(adapted []string) string {
	if len(adapted) == 0 {
		return ""
	}
	return "; wrote new_string in the file's style: " + strings.Join(adapted, ", ")
}

func (f *fileTool) multiReplace(ctx context.Context, c *Call, a *fileMultiReplaceArgs) (*Result, error) {
	if len(a.Edits) == 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "edits", Message: "edits is empty", Next: "send edits: [{path, old_string, new_string}]"}
	}
	set := &fileSet{}
	defer set.close()
	byPath := map[string]*authz.Target{}
	edits := make([]edit.FileReplacement, len(a.Edits))
	for i, e := range a.Edits {
		param := fmt.Sprintf("edits[%d]", i)
		if len(e.unknown) > 0 {
			return nil, &ToolError{Code: CodeUnexpectedParameter, Param: param + "." + strings.Join(e.unknown, ", "),
				Message: fmt.Sprintf("edit %d has unknown field(s) %s", i+1, strings.Join(e.unknown, ", ")),
				Next:    "each edit takes path, old_string, new_string, replace_all"}
		}
		p := e.Path
		if p == "" {
			p = a.Path
		}
		if p == "" {
			return nil, &ToolError{Code: CodeMissingParameter, Param: param + ".path", Message: fmt.Sprintf("edit %d has no path and no path parameter is given", i+1)}
		}
		if e.OldString == "" {
			return nil, &ToolError{Code: CodeInvalidValue, Param: param + ".old_string", Message: fmt.Sprintf("edit %d: old_string is empty", i+1)}
		}
		t, ok := byPath[p]
		if !ok {
			var err error
			if t, err = f.openWrite(ctx, c, p, param+".path"); err != nil {
				return nil, err
			}
			byPath[p] = t
			if err := set.add(t, param+".path"); err != nil {
				return nil, err
			}
		}
		edits[i] = edit.FileReplacement{Path: t.Rel, Replacement: edit.Replacement{OldString: e.OldString, NewString: e.NewString, ReplaceAll: e.ReplaceAll}}
	}
	first := set.targets[0]
	var rels []string
	for _, t := range set.targets {
		rels = append(rels, t.Rel)
	}
	res, err := edit.MultiReplace(ctx, set.root, edits, f.options(c, first, a.DryRun, rels...))
	if err != nil {
		f.forgetDeleted(c, first, err)
		param := "edits"
		if me := (*edit.MatchError)(nil); errors.As(err, &me) && me.Edit > 0 {
			param = fmt.Sprintf("edits[%d].old_string", me.Edit-1)
		}
		return nil, f.editError("", param, err)
	}
	if !a.DryRun {
		f.remember(c, first, res.Files)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d edits in %d file(s)", dryPrefix(a.DryRun), len(res.Edits), len(res.Files))
	if writeChangedNothing(&res.Result) {
		b.WriteString("; together they change nothing")
	}
	for i, e := range res.Edits {
		fmt.Fprintf(&b, "\n%d. %s: %s", i+1, f.display(first, e.Path), replaceOutcome(e.Count, e.Lines, e.Rung, e.Adapted, e.Undid))
	}
	return f.writeResult(first, b.String(), &res.Result), nil
}

func (f *fileTool) insertEdit(ctx context.Context, c *Call, a *fileInsertArgs) (*Result, error) {
	t, err := f.openWrite(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	name := f.display(t, t.Rel)
	le := edit.LineEdit{Text: a.Content, Line: int(a.Line), AfterPattern: a.After, BeforePattern: a.Before,
		StartLine: int(a.StartLine), EndLine: int(a.EndLine)}
	if le.EndLine != 0 && le.StartLine == 0 {
		le.StartLine = le.EndLine
	}
	if le.StartLine != 0 && le.EndLine == 0 {
		le.EndLine = le.StartLine
	}
	res, err := edit.InsertEdit(ctx, t.Root, t.Rel, le, f.options(c, t, a.DryRun, t.Rel))
	if err != nil {
		f.forgetDeleted(c, t, err)
		param := "line"
		switch {
		case le.AfterPattern != "":
			param = "after_pattern"
		case le.BeforePattern != "":
			param = "before_pattern"
		case le.StartLine > 0:
			param = "start_line"
		}
		return nil, f.suggest(ctx, c, f.editError(name, param, err), a.Path)
	}
	if !a.DryRun {
		f.remember(c, t, res.Files)
	}
	what := "inserted"
	switch {
	case le.StartLine > 0 && a.Content == "":
		what = fmt.Sprintf("deleted lines %d-%d", le.StartLine, le.EndLine)
	case le.StartLine > 0:
		what = fmt.Sprintf("replaced lines %d-%d", le.StartLine, le.EndLine)
	case le.Line > 0:
		what = fmt.Sprintf("inserted before line %d", le.Line)
	case le.AfterPattern != "":
		what = "inserted after the matching line"
	case le.BeforePattern != "":
		what = "inserted before the matching line"
	}
	if writeChangedNothing(res) {
		what += "; nothing changed, the file already had this text"
	}
	return f.writeResult(t, dryPrefix(a.DryRun)+name+": "+what, res), nil
}

// forgetDeleted drops the memory of a file whose stale error said it was deleted behind the
// model's back: the model has now been told, and the next write (recreating it) must not meet
// the same refusal forever.
func (f *fileTool) forgetDeleted(c *Call, t *authz.Target, err error) {
	var se *edit.StaleError
	if errors.As(err, &se) && se.Deleted {
		f.seen.forget(c.Conversation, fileCanonical(t, se.Path))
	}
}

// writeChangedNothing reports an update whose result equals the file, which the model should
// not mistake for the change it meant.
func writeChangedNothing(res *edit.Result) bool {
	if res.Diff != "" || len(res.Files) == 0 {
		return false
	}
	for _, s := range res.Files {
		if s.Op != edit.OpUpdate {
			return false
		}
	}
	return true
}

func (f *fileTool) renameFile(ctx context.Context, c *Call, a *fileRenameArgs) (*Result, error) {
	src, err := f.openMove(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer src.Close()
	dst, err := f.openMove(ctx, c, a.NewPath, "new_path")
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	if targetRootDir(src) != targetRootDir(dst) {
		return nil, &ToolError{Code: CodeMultipleRoots, Param: "new_path",
			Message: fmt.Sprintf("%s and %s are under different roots, so they cannot be renamed into each other", f.display(src, src.Rel), f.display(dst, dst.Rel)),
			Next:    "create the file at the destination (create_file), then delete the source"}
	}
	res, err := edit.RenameFile(ctx, src.Root, src.Rel, dst.Rel, a.Overwrite, edit.Options{DryRun: a.DryRun})
	if errors.Is(err, edit.ErrExists) {
		te := &ToolError{Code: CodeExists, Param: "new_path", Message: strings.Replace(err.Error(), dst.Rel, f.display(dst, dst.Rel), 1)}
		if !a.Overwrite {
			te.Next = "set overwrite true to replace a file there"
		}
		return nil, te
	}
	if err != nil {
		return nil, f.suggest(ctx, c, f.editError(f.display(src, src.Rel), "path", err), a.Path)
	}
	verb := "renamed"
	if a.DryRun {
		verb = "dry run, nothing written: would rename"
	} else {
		f.remember(c, src, res.Files)
	}
	return &Result{Text: fmt.Sprintf("%s %s -> %s", verb, f.display(src, src.Rel), f.display(dst, dst.Rel)), Structured: f.summary(src, res)}, nil
}

func (f *fileTool) deleteFile(ctx context.Context, c *Call, a *fileDeleteArgs) (*Result, error) {
	t, err := f.openDelete(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	name := f.display(t, t.Rel)
	res, err := edit.DeleteFile(ctx, t.Root, t.Rel, a.Recursive, edit.Options{DryRun: a.DryRun})
	if err != nil {
		return nil, f.suggest(ctx, c, f.editError(name, "path", err), a.Path)
	}
	if !a.DryRun {
		f.remember(c, t, res.Files)
	}
	return &Result{Text: dryPrefix(a.DryRun) + strings.TrimSpace(strings.Replace(res.Diff, path.Clean(t.Rel), name, 1)), Structured: f.summary(t, res)}, nil
}

func (f *fileTool) createDirectory(ctx context.Context, c *Call, a *fileDirArgs) (*Result, error) {
	t, err := f.openWrite(ctx, c, a.Path, "path")
	if err != nil {
		return nil, err
	}
	defer t.Close()
	name := f.display(t, t.Rel)
	res, err := edit.CreateDirectory(ctx, t.Root, t.Rel, edit.Options{DryRun: a.DryRun})
	if err != nil {
		return nil, f.editError(name, "path", err)
	}
	if len(res.Files) == 0 {
		return Text("%s already exists", fileDirName(name)), nil
	}
	if a.DryRun {
		return &Result{Text: dryPrefix(true) + "would create " + fileDirName(name), Structured: f.summary(t, res)}, nil
	}
	return &Result{Text: "created " + fileDirName(name), Structured: f.summary(t, res)}, nil
}

func (f *fileTool) applyPatch(ctx context.Context, c *Call, a *filePatchArgs) (*Result, error) {
	p, err := edit.ParsePatch(a.Patch)
	if err != nil {
		return nil, f.editError("", "patch", err)
	}
	if len(p.Files) == 0 {
		return nil, &ToolError{Code: CodeBadPatch, Param: "patch", Message: "the patch names no file",
			Next: "send a unified diff (--- a/x, +++ b/x, @@ hunks) or a *** Begin Patch envelope"}
	}
	// Every file the patch touches is checked before anything is planned or written, and the
	// engine gets the guard's root and relative paths, so check and use cannot diverge.
	set := &fileSet{}
	defer set.close()
	for i := range p.Files {
		fp := &p.Files[i]
		open := f.openWrite
		switch fp.Op {
		case edit.OpDelete:
			open = f.openDelete
		case edit.OpMove:
			open = f.openMove
		}
		t, err := open(ctx, c, fp.Path, "patch")
		if err != nil {
			return nil, err
		}
		if err := set.add(t, "patch"); err != nil {
			return nil, err
		}
		fp.Path = t.Rel
		if fp.Op == edit.OpMove {
			d, err := f.openMove(ctx, c, fp.NewPath, "patch")
			if err != nil {
				return nil, err
			}
			if err := set.add(d, "patch"); err != nil {
				return nil, err
			}
			fp.NewPath = d.Rel
		}
	}
	first := set.targets[0]
	var rels []string
	for _, fp := range p.Files {
		rels = append(rels, fp.Path)
		if fp.NewPath != "" {
			rels = append(rels, fp.NewPath)
		}
	}
	plan, err := edit.PlanPatch(ctx, set.root, p, f.options(c, first, a.DryRun, rels...))
	if err != nil {
		f.forgetDeleted(c, first, err)
		var pe *edit.PatchError
		if errors.As(err, &pe) && errors.Is(pe.Err, edit.ErrMissing) {
			// A misspelt path: offer the nearest existing one, as for the path parameter.
			te := &ToolError{Code: CodeNotFound, Param: "path", Message: err.Error()}
			f.suggest(ctx, c, te, f.display(first, pe.Path))
			te.Param = "patch"
			return nil, te
		}
		return nil, f.editError("", "patch", err)
	}
	unchanged := map[string]bool{}
	for _, ch := range plan.Changes {
		if ch.Op == edit.OpUpdate && bytes.Equal(ch.Old, ch.New) {
			unchanged[ch.Path] = true
		}
	}
	if len(unchanged) == len(plan.Changes) {
		// Reporting "applied" would tell the model its change landed.
		return nil, &ToolError{Code: CodeNoChange, Param: "patch", Message: "the patch changes nothing: its - and + lines are the same",
			Next: "read the file and send a patch whose + lines hold the new text"}
	}
	// Added files are the model's own text and deleted ones it wants gone: like create_file
	// and delete_file, the answer names them without echoing their lines.
	shown := &edit.Plan{}
	for _, ch := range plan.Changes {
		if ch.Op != edit.OpAdd && ch.Op != edit.OpDelete {
			shown.Changes = append(shown.Changes, ch)
		}
	}
	res := &edit.Result{Files: plan.Summary(), Diff: edit.CapDiff(shown.Diff(edit.DefaultContext), edit.DefaultMaxDiffLines), DryRun: a.DryRun}
	head := "applied patch"
	if a.DryRun {
		head = "dry run, nothing written; the patch applies"
	} else {
		if err := plan.Commit(ctx, set.root, f.journal); err != nil {
			return nil, f.editError("", "patch", err)
		}
		f.remember(c, first, res.Files)
		// The plan holds the exact bytes written: remember those rather than rereading, so a
		// change made right after the commit is still caught.
		for _, ch := range plan.Changes {
			switch ch.Op {
			case edit.OpAdd, edit.OpUpdate:
				f.seen.put(c.Conversation, fileCanonical(first, ch.Path), edit.FingerprintOf(ch.New, nil))
			case edit.OpMove:
				f.seen.put(c.Conversation, fileCanonical(first, ch.NewPath), edit.FingerprintOf(ch.New, nil))
			}
		}
	}
	var parts []string
	for _, s := range res.Files {
		d := string(s.Op) + " " + f.display(first, s.Path)
		if s.NewPath != "" {
			d += " -> " + f.display(first, s.NewPath)
		}
		if unchanged[s.Path] && s.Op == edit.OpUpdate {
			d += " (no change)"
		}
		if len(s.Adapted) > 0 {
			d += " (wrote the added lines in the file's style: " + strings.Join(s.Adapted, ", ") + ")"
		}
		parts = append(parts, d)
	}
	return f.writeResult(first, head+": "+strings.Join(parts, ", "), res), nil
}

// writeResult is the answer to every write: a header line, then the engine's capped diff.
func (f *fileTool) writeResult(t *authz.Target, head string, res *edit.Result) *Result {
	text := head
	if res.Diff != "" {
		text += "\n" + strings.TrimRight(res.Diff, "\n")
	}
	return &Result{Text: text, Structured: f.summary(t, res)}
}

// summary is the small structured form of a write: the files touched, with paths as the model
// would pass them back.
func (f *fileTool) summary(t *authz.Target, res *edit.Result) map[string]any {
	files := make([]map[string]any, 0, len(res.Files))
	for _, s := range res.Files {
		m := map[string]any{"op": s.Op, "path": f.display(t, s.Path)}
		if s.NewPath != "" {
			m["new_path"] = f.display(t, s.NewPath)
		}
		if s.Op != edit.OpDelete && !strings.HasSuffix(s.Path, "/") {
			m["bytes"] = s.Bytes
		}
		files = append(files, m)
	}
	out := map[string]any{"files": files}
	if res.DryRun {
		out["dry_run"] = true
	}
	return out
}
