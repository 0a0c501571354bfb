// Package pgtest starts a real PostgreSQL server for tests: initdb and postgres from the OS
// package (Debian's postgresql), run as a non-root user on a loopback port in a temporary
// directory, with password authentication over TCP. One server serves a whole test binary: the
// first test that needs it starts it, and Main (from TestMain) stops it when the tests end.
//
// Where PostgreSQL is not installed, Require skips the tests that need it, saying why, unless
// the environment variable CI is set: then they fail, since CI must run them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Superuser is the bootstrap superuser initdb creates.
const Superuser = "postgres"

// Server is a running PostgreSQL server.
type Server struct {
	// Port is the loopback TCP port it listens on.
	Port int
	// Password is the superuser's password.
	Password string
	dir      string
	cmd      *exec.Cmd
	done     chan struct{}
}

// ErrMissing means PostgreSQL's server binaries are not installed.
var ErrMissing = errors.New("pgtest: PostgreSQL server binaries (initdb, postgres) not found; install the postgresql package")

// BinDir finds the directory holding initdb and postgres: Debian's /usr/lib/postgresql/N/bin
// (the newest), else the directory of initdb on PATH.
func BinDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrMissing
}

// Start initialises a cluster in a new temporary directory and starts a server on a free
// loopback port. As root it runs the server as the postgres system user (initdb refuses root).
func Start() (*Server, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	cred, uid, gid, err := serverUser()
	if err != nil {
		return nil, err
	}
	removeStale()
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, Password: randomHex(12), done: make(chan struct{})}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, uid, gid); err != nil {
			return fail(err)
		}
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o600); err != nil {
		return fail(err)
	}
	if cred != nil {
		os.Chown(pwfile, uid, gid)
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", Superuser,
		"--pwfile", pwfile, "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = procAttr(cred, false)
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("pgtest: initdb: %w\n%s", err, out))
	}
	os.Remove(pwfile)
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		s.Port = port
		err = s.startServer(bin, cred)
		if err == nil {
			return s, nil
		}
		if attempt == 2 {
			return fail(err)
		}
	}
}

func (s *Server) startServer(bin string, cred *credential) error {
	log, err := os.Create(filepath.Join(s.dir, "server.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	// Durability is not under test: no fsync, small memory, few connections.
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(s.dir, "data"),
		"-k", s.dir, "-c", "listen_addresses=127.0.0.1", "-p", strconv.Itoa(s.Port),
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "shared_buffers=16MB", "-c", "max_connections=40", "-c", "log_min_messages=warning")
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// A test binary that is killed takes its server with it (where the platform can: Linux).
	s.cmd.SysProcAttr = procAttr(cred, true)
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	s.done = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgconn.Connect(ctx, s.DSN(Superuser, s.Password, "postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		select {
		case <-s.done:
			b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			return fmt.Errorf("pgtest: postgres exited: %s", b)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("pgtest: postgres did not accept connections within a minute: %w", err)
		}
	}
}

// DSN is a URL connection string for user and database over TCP.
func (s *Server) DSN(user, password, database string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", user, password, s.Port, database)
}

// Exec runs sql (one or more statements) as the superuser in database.
func (s *Server) Exec(ctx context.Context, database, sql string) error {
	c, err := pgconn.Connect(ctx, s.DSN(Superuser, s.Password, database))
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	_, err = c.Exec(ctx, sql).ReadAll()
	return err
}

// Stop shuts the server down (fast shutdown, then a kill after 20 s) and removes its files.
func (s *Server) Stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	}
	return os.RemoveAll(s.dir)
}

// shared is the one server of a test binary, started by the first Require.
var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Main runs a test binary and stops the shared server, if a test started one, when the tests
// end. Call it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if shared.srv != nil {
		shared.srv.Stop()
	}
	return code
}

// Require returns the test binary's shared server, starting it on first use, or ends the
// test: a failure under CI (CI must run every test), a skip that says why elsewhere.
func Require(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = Start() })
	if shared.srv != nil {
		return shared.srv
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("PostgreSQL is required under CI: %v", shared.err)
	}
	t.Skipf("PostgreSQL is not available: %v", shared.err)
	return nil
}

// removeStale removes the directories of servers whose test binary crashed (Pdeathsig ended
// the server, but nothing removed its files): no postmaster.pid naming a live process, and
// untouched for an hour, so that a directory another binary is setting up is left alone.
func removeStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "pgtest-*"))
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || time.Since(st.ModTime()) < time.Hour {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, "data", "postmaster.pid")); err == nil {
			line, _, _ := strings.Cut(string(b), "\n")
			if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil && alive(pid) {
				continue
			}
		}
		os.RemoveAll(d)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
