package memory

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// Background imports. Embedding a large document takes longer than clients wait for a call
// (a 1.2 MB file: minutes), so the MCP layer waits for an import only up to a yield and then
// answers with its progress while the import goes on. The model asks again by importing the
// same document, which finds the running import (StartImport) instead of starting another.

// finishedJobTTL is how long a finished import's result waits to be collected.
const finishedJobTTL = 30 * time.Minute

// ImportJob is one import running in the background.
type ImportJob struct {
	// Name and Scope identify the document, as in ImportRequest.
	Name, Scope string
	Started     time.Time

	hash   [sha256.Size]byte
	cancel context.CancelFunc
	done   chan struct{}

	mu          sync.Mutex
	doneChunks  int
	totalChunks int
	finished    time.Time
	res         ImportResult
	err         error
}

// Progress returns the chunks embedded so far and the total (0 until the document is chunked).
func (j *ImportJob) Progress() (done, total int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.doneChunks, j.totalChunks
}

// Done is closed when the import has finished, well or not.
func (j *ImportJob) Done() <-chan struct{} { return j.done }

// Cancel stops the import (an operator's cancel of its execution); nothing of it is kept, as
// with Close. Done is closed once it has stopped.
func (j *ImportJob) Cancel() { j.cancel() }

// Result returns the import's outcome once Done is closed.
func (j *ImportJob) Result() (ImportResult, error) {
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.res, j.err
}

type jobKey struct{ scope, name string }

// StartImport starts req in the background, or returns the import of the same document already
// running (or finished and not yet collected) when it has the same content; attached says so.
// An import of other content of the same document is cancelled and replaced. The import runs
// until it finishes or Close is called; ctx is not its context.
func (s *Service) StartImport(req ImportRequest) (job *ImportJob, attached bool, err error) {
	if err := s.CheckDocumentSize(req.Name, int64(len(req.Content))); err != nil {
		return nil, false, err
	}
	scope, err := resolveScope(req.Conversation, req.Scope)
	if err != nil {
		return nil, false, err
	}
	key := jobKey{scope, req.Name}
	hash := sha256.Sum256(req.Content)
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	s.pruneJobsLocked()
	if j, ok := s.jobs[key]; ok {
		if j.hash == hash {
			return j, true, nil
		}
		j.cancel()
	}
	if s.jobs == nil {
		s.jobs = map[jobKey]*ImportJob{}
	}
	ctx, cancel := context.WithCancel(s.base)
	job = &ImportJob{Name: req.Name, Scope: scope, Started: s.now(), hash: hash, cancel: cancel, done: make(chan struct{})}
	s.jobs[key] = job
	user := req.Progress
	req.Progress = func(done, total int) {
		job.mu.Lock()
		job.doneChunks, job.totalChunks = done, total
		job.mu.Unlock()
		if user != nil {
			user(done, total)
		}
	}
	s.jobsWG.Add(1)
	go func() {
		defer s.jobsWG.Done()
		defer cancel()
		res, err := s.Import(ctx, req)
		job.mu.Lock()
		job.res, job.err, job.finished = res, err, s.now()
		if err == nil {
			job.doneChunks, job.totalChunks = res.Chunks, res.Chunks
		}
		job.mu.Unlock()
		close(job.done)
	}()
	return job, false, nil
}

// Collect forgets a finished job once its result has been reported.
func (s *Service) Collect(job *ImportJob) {
	select {
	case <-job.done:
	default:
		return
	}
	s.jobsMu.Lock()
	defer s.jobsMu.Unlock()
	key := jobKey{job.Scope, job.Name}
	if s.jobs[key] == job {
		delete(s.jobs, key)
	}
}

// pruneJobsLocked forgets finished jobs nobody collected within finishedJobTTL.
func (s *Service) pruneJobsLocked() {
	now := s.now()
	for k, j := range s.jobs {
		j.mu.Lock()
		stale := !j.finished.IsZero() && now.Sub(j.finished) > finishedJobTTL
		j.mu.Unlock()
		if stale {
			delete(s.jobs, k)
		}
	}
}

// Close cancels the background imports and waits for them to stop. Nothing of a cancelled
// import is stored: its chunks are written in one transaction at its end.
func (s *Service) Close() error {
	s.stop()
	s.jobsWG.Wait()
	return nil
}
