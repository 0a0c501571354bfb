package terminal

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"toolhost/store"
)

// Sessions of a process that died without shutting down (a terminal host or a server killed
// with SIGKILL, a crash) were last written to the store when their last command finished, and
// what they printed after that is only in their recording, which is flushed within
// recordFlushEvery. The first manager that reads such a record takes the tail from the
// recording, so that the session is reported ended with what it printed up to the end, and
// writes the record back.

// recovered reports r as it ended: with the recording's tail when r's owner died with the
// session running; ok says r changed.
func (p *persister) recovered(r record) (record, bool) {
	if r.Recovered || (r.State != StateRunning && r.State != StateStarting) || r.Instance == p.m.instance || instanceAlive(r.Instance) {
		return r, false
	}
	r.Recovered = true
	if r.Kind == "command" {
		if tail, start, ok := outputTail(r.OutputFile, tailBytes); ok && start+int64(len(tail)) >= r.TailStart+int64(len(r.Tail)) {
			r.Tail, r.TailStart = tail, start
		}
		return r, true
	}
	dir := p.m.cfg.RecordDir
	if dir == "" {
		return r, true
	}
	tail, start, ok := recordedTail(dir, r.Conversation, r.ID, r.Started, tailBytes)
	if ok && start+int64(len(tail)) >= r.TailStart+int64(len(r.Tail)) {
		r.Tail, r.TailStart = tail, start
	}
	return r, true
}

// saveRecovered writes records recovered from recordings back, off the caller's path.
func (p *persister) saveRecovered(recs []record) {
	if p.st == nil || len(recs) == 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		err := p.st.Update(ctx, func(tx *store.Tx) error {
			for _, r := range recs {
				if err := tx.PutJSON(terminalsPath(r.Conversation), r.ID, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			slog.Warn("terminal: writing recovered session records failed", "err", err)
			return
		}
		for _, r := range recs {
			if r.OutputFile != "" {
				os.Remove(r.OutputFile) // the record holds its tail now
			}
		}
	}()
}

// outputTail is the last max bytes of a command's output file (commandOutputDir) and their
// offset in its output.
func outputTail(path string, max int) (string, int64, bool) {
	if path == "" {
		return "", 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, false
	}
	start := max64(0, fi.Size()-int64(max))
	b := make([]byte, fi.Size()-start)
	n, err := f.ReadAt(b, start)
	if err != nil && n < len(b) {
		return "", 0, false
	}
	return strings.ToValidUTF8(string(b[:n]), ""), start, true
}

// recordedTail replays the recording of session id of conv that started at started through a
// log view, as the session's log saw its output, and returns the last max bytes of that log and
// their offset.
func recordedTail(dir, conv, id string, started time.Time, max int) (string, int64, bool) {
	recs, err := Recordings(dir, conv)
	if err != nil {
		return "", 0, false
	}
	i := slices.IndexFunc(recs, func(r RecordingInfo) bool {
		return r.Session == id && r.Started.UnixMilli() == started.UnixMilli()
	})
	if i < 0 {
		return "", 0, false
	}
	log := newRing(2 * max)
	view := newLogView(log, nil)
	for _, path := range recs[i].files {
		f, err := os.Open(path)
		if err != nil {
			return "", 0, false
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		first := true
		for sc.Scan() {
			if first {
				first = false
				continue // the header
			}
			var ev [3]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue // a line torn by the crash
			}
			var t float64
			var code, data string
			_ = json.Unmarshal(ev[0], &t)
			_ = json.Unmarshal(ev[1], &code)
			if code != "o" || json.Unmarshal(ev[2], &data) != nil {
				continue
			}
			view.write([]byte(data), started.Add(time.Duration(t*float64(time.Second))))
		}
		f.Close()
	}
	from := max64(log.start(), log.end()-int64(max))
	data, from := log.read(from, max)
	return strings.ToValidUTF8(string(data), ""), from, true
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
