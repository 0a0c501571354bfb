package terminal

import "fmt"

// ring keeps the newest bytes of an append-only stream, addressed by absolute offsets so a
// reader's cursor stays valid while old bytes are dropped. It grows lazily up to its limit, so
// an idle session does not pay for the whole budget. It is not safe for concurrent use.
type ring struct {
	buf   []byte
	limit int
	head  int   // index in buf of the oldest byte once buf is full
	total int64 // bytes ever written; offset of the next byte
}

func newRing(limit int) *ring {
	if limit < 1024 {
		limit = 1024
	}
	return &ring{limit: limit}
}

// start is the offset of the oldest retained byte.
func (r *ring) start() int64 { return r.total - int64(len(r.buf)) }

// end is the offset just past the newest byte.
func (r *ring) end() int64 { return r.total }

func (r *ring) write(p []byte) {
	if len(p) == 0 {
		return
	}
	r.total += int64(len(p))
	if len(p) >= r.limit {
		p = p[len(p)-r.limit:]
		if cap(r.buf) < r.limit {
			r.buf = make([]byte, r.limit)
		}
		r.buf = r.buf[:r.limit]
		copy(r.buf, p)
		r.head = 0
		return
	}
	if len(r.buf) < r.limit {
		room := r.limit - len(r.buf)
		if len(p) <= room {
			r.buf = append(r.buf, p...)
			return
		}
		r.buf = append(r.buf, p[:room]...)
		p = p[room:]
		r.head = 0
	}
	// Full: overwrite the oldest bytes.
	for len(p) > 0 {
		n := copy(r.buf[r.head:], p)
		p = p[n:]
		r.head = (r.head + n) % r.limit
	}
}

// read copies up to max bytes starting at offset off (clamped to the retained range) and
// reports the offset actually used, so a caller can tell how much was dropped.
func (r *ring) read(off int64, max int) (data []byte, from int64) {
	if off < r.start() {
		off = r.start()
	}
	if off >= r.total || max <= 0 {
		return nil, off
	}
	n := r.total - off
	if n > int64(max) {
		n = int64(max)
	}
	out := make([]byte, n)
	// Logical index of off within retained bytes.
	li := int(off - r.start())
	if len(r.buf) < r.limit {
		copy(out, r.buf[li:])
		return out, off
	}
	pi := (r.head + li) % r.limit
	c := copy(out, r.buf[pi:])
	if c < len(out) {
		copy(out[c:], r.buf)
	}
	return out, off
}

// droppedMarker is placed before text when a cursor pointed at bytes the ring already dropped.
func droppedMarker(n int64) string {
	return fmt.Sprintf("[... %d bytes of older output dropped ...]\n", n)
}
