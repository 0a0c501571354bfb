package main

import (
	"fmt"
	"time"

	"toolhost/internal/conversation"
	"toolhost/internal/owner"
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
	return nil
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
