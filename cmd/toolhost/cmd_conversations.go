package main

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"toolhost/internal/config"
	"toolhost/internal/conversation"
	"toolhost/internal/owner"
	"toolhost/internal/server"
)

// conversationCommands show which session works in which conversation.
var conversationCommands = group{title: "Conversations", commands: []cliCommand{
	{
		name: "conversations",
		help: "list conversations, the live sessions holding them, and the one a new session resumes",
		run:  listConversations,
	},
}}

func listConversations(inv *invocation) error {
	a, err := inv.App()
	if err != nil {
		return err
	}
	if a.Leases == nil {
		fmt.Fprintf(inv.stdout, "every session is pinned to conversation %s (config conversation or --conversation)\n", a.Env.DefaultConversation)
		return nil
	}
	list, err := a.Leases.List(inv.ctx)
	if err != nil {
		return err
	}
	next, err := a.Leases.Next(inv.ctx, conversation.LocalPrincipal)
	if err != nil {
		return err
	}
	listed := false
	for _, l := range list {
		state := "released " + l.Released.Local().Format(time.DateTime)
		if l.Held {
			state = "held by " + holderText(l.Holder, l.Session) + " since " + l.Leased.Local().Format(time.DateTime)
		} else if l.Released.IsZero() {
			state = "free (its process ended)"
		}
		mark := ""
		if l.Conversation == next {
			mark, listed = "  <- a new stdio session here resumes it", true
		}
		fmt.Fprintf(inv.stdout, "%s  %s  principal %s  workdir %s%s\n", l.Conversation, state, l.Principal, l.Workdir, mark)
	}
	if !listed {
		fmt.Fprintf(inv.stdout, "a new stdio session here starts conversation %s\n", next)
	}
	fmt.Fprintln(inv.stdout, httpSessionCounts(list, a.Config.HTTP))
	return nil
}

// httpSessionCounts says how many HTTP sessions hold a conversation, in all and by
// principal, against serve's bounds ([http] max_sessions, max_sessions_per_principal).
func httpSessionCounts(list []conversation.Lease, hc config.HTTP) string {
	maxAll, maxEach := hc.MaxSessions, hc.MaxSessionsPerPrincipal
	if maxAll <= 0 {
		maxAll = server.DefaultMaxSessions
	}
	if maxEach <= 0 {
		maxEach = server.DefaultMaxSessionsPerPrincipal
	}
	total, by := 0, map[string]int{}
	for _, l := range list {
		if l.Held && l.Session != "" {
			total++
			by[l.Principal]++
		}
	}
	s := fmt.Sprintf("HTTP sessions holding a conversation: %d of max_sessions %d", total, maxAll)
	for _, p := range slices.Sorted(maps.Keys(by)) {
		s += fmt.Sprintf("; principal %s: %d of %d", p, by[p], maxEach)
	}
	return s
}

// holderText names a lease's holder: its process and, over HTTP, its session.
func holderText(holder, session string) string {
	s := holder
	if id, ok := owner.Parse(holder); ok {
		s = fmt.Sprintf("pid %d", id.PID)
	}
	if session != "" {
		s += " (HTTP session " + session + ")"
	}
	return s
}
