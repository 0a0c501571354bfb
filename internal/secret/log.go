package secret

import (
	"context"
	"fmt"
	"log/slog"
)

// LogHandler wraps h so that every record it writes is masked: the message and every string,
// error and stringer value of its attributes, as Text masks them. toolhost's logger is built on
// it, so no log line needs to remember to mask what it prints.
func LogHandler(h slog.Handler) slog.Handler { return &logHandler{h} }

type logHandler struct{ h slog.Handler }

func (l *logHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *logHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(maskAttr(a))
		return true
	})
	return l.h.Handle(ctx, out)
}

func (l *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	masked := make([]slog.Attr, len(as))
	for i, a := range as {
		masked[i] = maskAttr(a)
	}
	return &logHandler{l.h.WithAttrs(masked)}
}

func (l *logHandler) WithGroup(name string) slog.Handler { return &logHandler{l.h.WithGroup(name)} }

// maskAttr masks an attribute's value: a string, an error or a Stringer as text, a group
// member by member; numbers, times and the like pass.
func maskAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Text(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]any, len(g))
		for i, m := range g {
			out[i] = maskAttr(m)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, Text(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, Text(x.String()))
		case []byte:
			return slog.String(a.Key, Text(string(x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
