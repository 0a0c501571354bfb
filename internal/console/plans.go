package console

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"toolhost/internal/memory"
	"toolhost/internal/todo"
	"toolhost/store"
)

// importLimit is the largest document the memory page imports: the memory service's limit
// (memory.Service.MaxDocumentBytes), or nothing without one.
func (c *Console) importLimit() int64 {
	if c.o.Memory == nil {
		return 0
	}
	return int64(c.o.Memory.MaxDocumentBytes())
}

// conversations lists the conversations the store knows, sorted.
func (c *Console) conversations(ctx context.Context) ([]string, error) {
	if c.o.Store == nil {
		return nil, nil
	}
	var out []string
	err := c.o.Store.View(ctx, func(tx *store.Tx) error {
		var err error
		out, err = tx.Buckets(store.Path{store.BucketConversations})
		return err
	})
	slices.Sort(out)
	return out, err
}

func (c *Console) plansPage(w http.ResponseWriter, r *http.Request, s *session) {
	convs, err := c.conversations(r.Context())
	if err != nil {
		c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the conversations.", err)
		return
	}
	type plan struct {
		Conversation string
		List         todo.List
	}
	var plans []plan
	for _, conv := range convs {
		l, err := todo.Read(r.Context(), c.o.Store, conv)
		if err != nil {
			c.fail(w, r, s, http.StatusInternalServerError, "Cannot read a todo list.", err)
			return
		}
		if len(l.Todos) > 0 {
			plans = append(plans, plan{conv, l})
		}
	}
	c.render(w, r, http.StatusOK, "plans", s, map[string]any{"Plans": plans})
}

// memoryConversation is the conversation the memory page looks at: the one asked for, else
// the first the store knows.
func (c *Console) memoryConversation(r *http.Request, convs []string) string {
	if v := r.FormValue("conversation"); v != "" {
		return v
	}
	if len(convs) > 0 {
		return convs[0]
	}
	return ""
}

func (c *Console) memoryPage(w http.ResponseWriter, r *http.Request, s *session) {
	data := map[string]any{}
	if c.o.Memory == nil {
		data["Missing"] = true
		c.render(w, r, http.StatusOK, "memory", s, data)
		return
	}
	ctx := r.Context()
	convs, err := c.conversations(ctx)
	if err != nil {
		c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the conversations.", err)
		return
	}
	conv := c.memoryConversation(r, convs)
	data["Conversations"], data["Conversation"] = convs, conv
	data["Embedder"] = c.o.Memory.Embedder().ID()
	if data["Instructions"], err = c.o.Memory.Instructions(ctx, ""); err != nil {
		c.fail(w, r, s, http.StatusInternalServerError, "Cannot list the standing instructions.", err)
		return
	}
	if conv != "" {
		if data["Collections"], err = c.o.Memory.Collections(ctx, conv); err != nil {
			c.fail(w, r, s, http.StatusInternalServerError, "Cannot list the collections.", err)
			return
		}
		if data["Documents"], err = c.o.Memory.Documents(ctx, conv); err != nil {
			c.fail(w, r, s, http.StatusInternalServerError, "Cannot list the documents.", err)
			return
		}
		if q := strings.TrimSpace(r.FormValue("q")); q != "" {
			data["Query"] = q
			scope := r.FormValue("scope")
			if scope == "" {
				scope = "all"
			}
			data["Scope"] = scope
			hits, err := c.o.Memory.Search(ctx, memory.SearchRequest{Conversation: conv, Query: q, Scopes: []string{scope}, Limit: 50})
			if err != nil {
				data["SearchError"] = err.Error()
			}
			data["Hits"] = hits
		} else {
			notes, err := c.o.Memory.Recent(ctx, conv, time.Time{})
			if err != nil {
				c.fail(w, r, s, http.StatusInternalServerError, "Cannot list the memories.", err)
				return
			}
			data["Recent"] = notes
		}
	}
	imports, _ := c.importsData(ctx, r, s)
	data["Imports"] = imports["Imports"]
	data["Message"] = r.FormValue("msg")
	c.render(w, r, http.StatusOK, "memory", s, data)
}

// deleteMemory answers POST /memory/delete: conversation=ID id=N.
func (c *Console) deleteMemory(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Memory == nil {
		c.fail(w, r, s, http.StatusNotFound, "No memory in this server.", nil)
		return
	}
	conv := r.PostFormValue("conversation")
	id, err := strconv.ParseUint(r.PostFormValue("id"), 10, 64)
	if err != nil || conv == "" {
		c.fail(w, r, s, http.StatusBadRequest, "A delete needs conversation and a numeric id.", nil)
		return
	}
	n, err := c.o.Memory.Delete(r.Context(), memory.DeleteRequest{Conversation: conv, ID: id})
	if err != nil {
		c.fail(w, r, s, http.StatusBadRequest, "Not deleted: "+err.Error(), err)
		return
	}
	c.o.Logger.Info("console deleted memory", "conversation", conv, "id", id)
	http.Redirect(w, r, "/memory?conversation="+url.QueryEscape(conv)+"&msg="+url.QueryEscape(fmt.Sprintf("Deleted %d memory.", n)), http.StatusSeeOther)
}

// forgetInstruction answers POST /memory/forget: id=N, a standing instruction to remove.
func (c *Console) forgetInstruction(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Memory == nil {
		c.fail(w, r, s, http.StatusNotFound, "No memory in this server.", nil)
		return
	}
	id, err := strconv.ParseUint(r.PostFormValue("id"), 10, 64)
	if err != nil || id == 0 {
		c.fail(w, r, s, http.StatusBadRequest, "Removing an instruction needs its numeric id.", nil)
		return
	}
	if err := c.o.Memory.Forget(r.Context(), id); err != nil {
		c.fail(w, r, s, http.StatusBadRequest, "Not removed: "+err.Error(), err)
		return
	}
	c.o.Logger.Info("console removed standing instruction", "id", id)
	conv := r.PostFormValue("conversation")
	http.Redirect(w, r, "/memory?conversation="+url.QueryEscape(conv)+"&msg="+url.QueryEscape(fmt.Sprintf("Removed standing instruction %d.", id)), http.StatusSeeOther)
}

// importJob is an import started from the console, for the progress bar.
type importJob struct {
	job *memory.ImportJob
}

// importDocument answers POST /memory/import (multipart): conversation, scope, file.
func (c *Console) importDocument(w http.ResponseWriter, r *http.Request, s *session) {
	if c.o.Memory == nil {
		c.fail(w, r, s, http.StatusNotFound, "No memory in this server.", nil)
		return
	}
	limit := c.importLimit()
	f, hdr, err := r.FormFile("file")
	if err != nil {
		c.fail(w, r, s, http.StatusBadRequest, fmt.Sprintf("Choose a text or Markdown file to import (at most %s).", humanBytes(limit)), err)
		return
	}
	defer f.Close()
	// The memory service's limit decides, before the upload is read and on what was read.
	if err := c.o.Memory.CheckDocumentSize(hdr.Filename, hdr.Size); err != nil {
		c.fail(w, r, s, http.StatusBadRequest, fmt.Sprintf("The file is larger than %s.", humanBytes(limit)), err)
		return
	}
	content, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		c.fail(w, r, s, http.StatusBadRequest, "The file could not be read.", err)
		return
	}
	conv := r.PostFormValue("conversation")
	req := memory.ImportRequest{Conversation: conv, Name: hdr.Filename, Content: content, Scope: r.PostFormValue("scope")}
	job, _, err := c.o.Memory.StartImport(req)
	if err != nil {
		c.fail(w, r, s, http.StatusBadRequest, "Not imported: "+err.Error(), err)
		return
	}
	c.imports.Store(job.Scope+"\x00"+job.Name, importJob{job})
	c.o.Logger.Info("console import", "conversation", conv, "name", hdr.Filename, "bytes", len(content))
	http.Redirect(w, r, "/memory?conversation="+url.QueryEscape(conv), http.StatusSeeOther)
}

// importView is one import's progress.
type importView struct {
	Name, Scope string
	Done, Total int
	Percent     int
	Finished    bool
	Error       string
}

func (c *Console) importsData(ctx context.Context, r *http.Request, s *session) (map[string]any, error) {
	var out []importView
	c.imports.Range(func(_, v any) bool {
		j := v.(importJob).job
		done, total := j.Progress()
		iv := importView{Name: j.Name, Scope: j.Scope, Done: done, Total: total}
		if total > 0 {
			iv.Percent = done * 100 / total
		}
		select {
		case <-j.Done():
			iv.Finished, iv.Percent = true, 100
			if _, err := j.Result(); err != nil {
				iv.Error = err.Error()
			}
		default:
		}
		out = append(out, iv)
		return true
	})
	slices.SortFunc(out, func(a, b importView) int { return strings.Compare(a.Scope+a.Name, b.Scope+b.Name) })
	return map[string]any{"Imports": out}, nil
}
