// Package reminders builds the <system-reminder> blocks that keep a model aware of its todo list
// and of recently stored memories.
package reminders
