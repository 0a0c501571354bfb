//go:build windows

package terminal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
	"unsafe"

	"github.com/charmbracelet/x/conpty"
	"golang.org/x/sys/windows"

	"toolhost/internal/sandbox"
)

// Pseudo consoles (ConPTY) for sessions and one-shot commands. The console itself (its pipes,
// CreatePseudoConsole, resize, close) is charmbracelet/x/conpty's; the process start is ours,
// because a command must be in its job object before it runs (the library's Spawn starts it
// running) so that nothing it starts can leave the job, and because one-shot commands keep
// stdout and stderr apart on pipes of their own while the console gives them a hidden console
// (no window pops up, console APIs work, nothing reads toolhost's own stdin).

// procCreatePseudoConsole is looked up, not called: x/sys panics calling a function kernel32
// does not have (Windows before 10 1809).
var procCreatePseudoConsole = windows.NewLazySystemDLL("kernel32.dll").NewProc("CreatePseudoConsole")

// hasConPTY says whether this Windows has pseudo consoles.
func hasConPTY() bool { return procCreatePseudoConsole.Find() == nil }

// jobObject is a Windows job object holding every process started for a session or command:
// members lists them and closing it kills them (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), also when
// toolhost itself dies, since the system then closes the handle.
type jobObject struct {
	mu sync.Mutex
	h  windows.Handle // 0 once closed
}

func newJobObject() (*jobObject, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("set job object limits: %w", err)
	}
	return &jobObject{h: h}, nil
}

// maxJobPIDs bounds the process ids read from a job at once.
const maxJobPIDs = 1024

// jobPIDList is JOBOBJECT_BASIC_PROCESS_ID_LIST with room for maxJobPIDs ids.
type jobPIDList struct {
	assigned, listed uint32
	ids              [maxJobPIDs]uintptr
}

// pids lists the job's live processes; ok is false once the job is closed or when Windows
// does not answer.
func (j *jobObject) pids() (ids []int, ok bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return nil, false
	}
	var l jobPIDList
	if err := windows.QueryInformationJobObject(j.h, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&l)), uint32(unsafe.Sizeof(l)), nil); err != nil && err != windows.ERROR_MORE_DATA {
		return nil, false
	}
	ids = make([]int, 0, min(l.listed, maxJobPIDs))
	for _, id := range l.ids[:min(l.listed, maxJobPIDs)] {
		ids = append(ids, int(id))
	}
	return ids, true
}

// closed says whether Close has run.
func (j *jobObject) closed() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.h == 0
}

// Close kills what is left in the job.
func (j *jobObject) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.h == 0 {
		return nil
	}
	err := windows.CloseHandle(j.h)
	j.h = 0
	return err
}

// spawnOnConsole starts cmd (its Path, Args, Dir and Env) attached to the pseudo console hpc,
// in a new job object. std, when set, are its standard handles (stdin, stdout, stderr);
// otherwise it uses the console's. The process is created suspended, put in the job and then
// let run, so that everything it starts is in the job too. cmd.Process is set: cmd.Wait waits.
func spawnOnConsole(cmd *exec.Cmd, hpc windows.Handle, std []windows.Handle) (*jobObject, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.Process != nil {
		return nil, errors.New("exec: already started")
	}
	path := cmd.Path
	if !filepath.IsAbs(path) {
		// exec.Command resolved it on PATH; a relative one would be looked up again from
		// the command's directory by CreateProcess.
		return nil, fmt.Errorf("%s: %w", path, exec.ErrDot)
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	block, err := envBlock(env, os.Getenv("SYSTEMROOT"))
	if err != nil {
		return nil, err
	}
	app, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	line, err := windows.UTF16PtrFromString(windows.ComposeCommandLine(cmd.Args))
	if err != nil {
		return nil, err
	}
	var dir *uint16
	if cmd.Dir != "" {
		if dir, err = windows.UTF16PtrFromString(cmd.Dir); err != nil {
			return nil, err
		}
	}

	attrs, err := windows.NewProcThreadAttributeList(2)
	if err != nil {
		return nil, fmt.Errorf("attribute list: %w", err)
	}
	defer attrs.Delete()
	// The attribute's value is the HPCON itself, not a pointer to it.
	if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, *(*unsafe.Pointer)(unsafe.Pointer(&hpc)), unsafe.Sizeof(hpc)); err != nil {
		return nil, fmt.Errorf("pseudo console attribute: %w", err)
	}
	si := &windows.StartupInfoEx{}
	si.Cb = uint32(unsafe.Sizeof(*si))
	// With STARTF_USESTDHANDLES and no handles, the process gets the console's own, never
	// toolhost's (which, on stdio, carry the protocol).
	si.Flags = windows.STARTF_USESTDHANDLES
	inherit := false
	var inherited []windows.Handle
	defer func() {
		for _, h := range inherited {
			windows.CloseHandle(h)
		}
	}()
	if len(std) == 3 {
		// Inheritable copies, and only they are inherited (PROC_THREAD_ATTRIBUTE_HANDLE_LIST).
		self := windows.CurrentProcess()
		for _, h := range std {
			var dup windows.Handle
			if err := windows.DuplicateHandle(self, h, self, &dup, 0, true, windows.DUPLICATE_SAME_ACCESS); err != nil {
				return nil, fmt.Errorf("duplicate standard handle: %w", err)
			}
			inherited = append(inherited, dup)
		}
		si.StdInput, si.StdOutput, si.StdErr = inherited[0], inherited[1], inherited[2]
		if err := attrs.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&inherited[0]), uintptr(len(inherited))*unsafe.Sizeof(inherited[0])); err != nil {
			return nil, fmt.Errorf("handle list attribute: %w", err)
		}
		inherit = true
	}
	si.ProcThreadAttributeList = attrs.List()

	job, err := newJobObject()
	if err != nil {
		return nil, err
	}
	var pi windows.ProcessInformation
	flags := uint32(windows.EXTENDED_STARTUPINFO_PRESENT | windows.CREATE_UNICODE_ENVIRONMENT | windows.CREATE_SUSPENDED)
	if err := windows.CreateProcess(app, line, nil, nil, inherit, flags, &block[0], dir, &si.StartupInfo, &pi); err != nil {
		job.Close()
		return nil, &os.PathError{Op: "CreateProcess", Path: path, Err: err}
	}
	defer windows.CloseHandle(pi.Thread)
	defer windows.CloseHandle(pi.Process)
	if err := windows.AssignProcessToJobObject(job.h, pi.Process); err != nil {
		_ = windows.TerminateProcess(pi.Process, 1)
		job.Close()
		return nil, fmt.Errorf("assign to job object: %w", err)
	}
	// While toolhost holds pi.Process the id cannot be reused, so FindProcess opens this one.
	p, err := os.FindProcess(int(pi.ProcessId))
	if err == nil {
		_, err = windows.ResumeThread(pi.Thread)
	}
	if err != nil {
		job.Close()
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	cmd.Process = p
	return job, nil
}

// consolePTY is a session's pseudo console. Its input pipe is synchronous: deadlineWriter
// gives writes their deadline.
type consolePTY struct {
	deadlineWriter
	c   *conpty.ConPty
	job *jobObject
}

// startInPTY starts cmd on a new pseudo console of the given size. Nothing confines it:
// Windows has no sandbox, and the policy is refused unless it says so (sandbox.Unconfined).
func startInPTY(cmd *exec.Cmd, cols, rows int, p *sandbox.Policy) (ptyStart, error) {
	if err := sandbox.Unconfined(p); err != nil {
		return ptyStart{}, err
	}
	if !hasConPTY() {
		return ptyStart{}, errNoPTY
	}
	c, err := conpty.New(cols, rows, 0)
	if err != nil {
		return ptyStart{}, fmt.Errorf("open pseudo console: %w", err)
	}
	job, err := spawnOnConsole(cmd, windows.Handle(c.Fd()), nil)
	if err != nil {
		go drain(c) // ClosePseudoConsole may wait for its output to be read
		c.Close()
		return ptyStart{}, err
	}
	return ptyStart{conn: &consolePTY{deadlineWriter: deadlineWriter{write: c.Write}, c: c, job: job}, job: job}, nil
}

// Read returns the console's output: the screen, rendered as VT sequences by the console host.
func (t *consolePTY) Read(p []byte) (int, error) {
	n, err := t.c.Read(p)
	if err != nil && n == 0 {
		if errors.Is(err, windows.ERROR_BROKEN_PIPE) || errors.Is(err, windows.ERROR_INVALID_HANDLE) {
			return 0, io.EOF
		}
		return 0, err
	}
	return n, nil
}

func (t *consolePTY) Resize(cols, rows int) error { return t.c.Resize(cols, rows) }

// LocalModes: a console has input modes, but they belong to the console host inside the
// pseudo console, which toolhost cannot query.
func (t *consolePTY) LocalModes() (uint32, bool) { return 0, false }

func (t *consolePTY) InputPending() bool { return false }

// Close closes the pseudo console (its processes get a close event) and then the job, which
// kills what is left.
func (t *consolePTY) Close() error {
	err := t.c.Close()
	t.job.Close()
	return err
}

// drain reads a console's output until it is closed, so that the console host never blocks.
func drain(c *conpty.ConPty) {
	buf := make([]byte, 4096)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

// commandConsole is what a one-shot command started by startJobProcess holds: its hidden
// console and its job. It closes them when the command's last process has ended, or when the
// command is closed or forgotten.
type commandConsole struct {
	c    *conpty.ConPty
	job  *jobObject
	once sync.Once
}

func (cc *commandConsole) Close() error {
	var err error
	cc.once.Do(func() {
		err = cc.c.Close()
		cc.job.Close()
	})
	return err
}

// jobEmptyPoll is how often a finished command's job is looked at for processes left.
const jobEmptyPoll = 250 * time.Millisecond

// closeWhenEmpty closes cc once its job holds no process (or is closed), so that a finished
// command's console host does not live on until the command is forgotten. A job Windows does
// not answer about is left to Close: closing a console kills what is attached to it.
func (cc *commandConsole) closeWhenEmpty() {
	for !cc.job.closed() {
		if ids, ok := cc.job.pids(); ok && len(ids) == 0 {
			cc.Close()
			return
		}
		time.Sleep(jobEmptyPoll)
	}
}
