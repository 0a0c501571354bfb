//go:build compat

package compat

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptSDKTasks drives MCP Tasks with the TypeScript SDK client's experimental Tasks
// API over stdio and HTTP: a command runs as a task to completion, another is cancelled while
// it runs, tasks/list lists both, and an unknown task is not found.
func TestTypeScriptSDKTasks(t *testing.T) {
	s := newSuite(t)
	script := filepath.Join(s.dir, "ts", "tasks-check.mjs")
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			type driven struct {
				Types    []string `json:"types"`
				Statuses []string `json:"statuses"`
				TaskID   string   `json:"taskId"`
				Created  string   `json:"created"`
				Text     string   `json:"text"`
				IsError  bool     `json:"isError"`
				Error    string   `json:"error"`
			}
			var got struct {
				ServerTasks     map[string]any `json:"serverTasks"`
				TaskTools       []string       `json:"taskTools"`
				Completed       driven         `json:"completed"`
				Cancelled       driven         `json:"cancelled"`
				CancelAnswer    string         `json:"cancelAnswer"`
				CancelledStatus string         `json:"cancelledStatus"`
				Listed          []string       `json:"listed"`
				Unknown         string         `json:"unknown"`
			}
			t.Logf("TS SDK tasks over %s: %s", tr, s.nodeCheck(t, f, 3*time.Minute, &got, script))
			if got.ServerTasks == nil || !slices.Contains(got.TaskTools, "terminal_operations") {
				t.Errorf("server tasks capability %v, task tools %v: want the capability and terminal_operations", got.ServerTasks, got.TaskTools)
			}
			c := got.Completed
			if c.Created != "working" || !slices.Contains(c.Statuses, "completed") || c.IsError || !strings.Contains(c.Text, "done-42") {
				t.Errorf("completed task = %+v, want created working, polled to completed, its result with done-42", c)
			}
			x := got.Cancelled
			if x.Created != "working" || got.CancelAnswer != "cancelled" || got.CancelledStatus != "cancelled" || !strings.Contains(x.Error, "cancelled") {
				t.Errorf("cancelled task = %+v (cancel answered %q, then %q), want it cancelled", x, got.CancelAnswer, got.CancelledStatus)
			}
			if !slices.Contains(got.Listed, c.TaskID) || !slices.Contains(got.Listed, x.TaskID) {
				t.Errorf("tasks/list = %v, want %s and %s", got.Listed, c.TaskID, x.TaskID)
			}
			if got.Unknown != "error -32602" {
				t.Errorf("tasks/get of an unknown task = %q, want error -32602", got.Unknown)
			}
		})
	}
}

// TestExtTasks drives the Tasks extension of 2026-07-28 with its official requester,
// @modelcontextprotocol/ext-tasks, over stdio and HTTP: server/discover declares the extension,
// a command the server runs as a task settles to its result through tasks/get, another is
// cancelled while it runs, and a quick call is answered at once.
func TestExtTasks(t *testing.T) {
	s := newSuite(t)
	for _, pkg := range []string{"@modelcontextprotocol/ext-tasks", "@modelcontextprotocol/client"} {
		checkInstalled(t, s, pkg)
	}
	script := filepath.Join(s.dir, "ts", "ext-tasks-check.mjs")
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			type execution struct {
				Kind, TaskID, Status, Text, LastStatus string
			}
			var got struct {
				Extension map[string]any `json:"extension"`
				Completed execution      `json:"completed"`
				Cancelled execution      `json:"cancelled"`
				Quick     execution      `json:"quick"`
				Sent      []string       `json:"sent"`
			}
			t.Logf("ext-tasks over %s: %s", tr, s.nodeCheck(t, f, 3*time.Minute, &got, script))
			if got.Extension == nil || len(got.Extension) != 0 {
				t.Errorf("server/discover declares the extension as %v, want {}", got.Extension)
			}
			if c := got.Completed; c.Kind != "task" || c.Status != "completed" || !strings.Contains(c.Text, "done-42") {
				t.Errorf("run_command = %+v, want a task settled to its result with done-42", c)
			}
			if x := got.Cancelled; x.Kind != "task" || x.Status != "cancelled" {
				t.Errorf("cancelled run_command = %+v, want a task settled cancelled", x)
			}
			if q := got.Quick; q.Kind != "immediate" || q.Status != "completed" {
				t.Errorf("think = %+v, want an immediate result", q)
			}
			for _, m := range []string{"tasks/get", "tasks/cancel"} {
				if !slices.Contains(got.Sent, m) {
					t.Errorf("ext-tasks sent %v, want %s among them", got.Sent, m)
				}
			}
		})
	}
}
