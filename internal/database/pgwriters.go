package database

import (
	"context"
	"fmt"
	"strings"
)

// Which PostgreSQL functions may write although the transaction is read-only is read from the
// server's own catalog, not kept by hand: every volatile function implemented in C (the server's
// built-ins and C extensions such as dblink) can change state that BEGIN READ ONLY does not
// guard — index pages (brin_summarize_new_values, gin_clean_pending_list), large objects,
// sequences, advisory locks, other sessions, server files, replication — and is refused unless
// it is known to only read (pgReadOnlyVolatile). A function in SQL or PL/pgSQL runs its
// statements under the read-only transaction, which refuses their writes. A newer server's new
// built-in is refused until someone has looked at it.

// pgWritersSQL lists the volatile functions implemented in C.
const pgWritersSQL = `SELECT DISTINCT lower(p.proname) FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE p.provolatile = 'v' AND l.lanname IN ('c', 'internal')`

// pgReadOnlyVolatile are volatile C functions that only read or report, or change nothing but
// the calling session's own throwaway state (its random seed, its statistics snapshot): a
// query may call them. Handlers and trigger functions that cannot be called from a query are
// not listed; they stay refused, which costs nothing.
var pgReadOnlyVolatile = map[string]bool{
	"random": true, "random_normal": true, "setseed": true, "gen_random_uuid": true, "uuidv4": true, "uuidv7": true,
	"clock_timestamp": true, "timeofday": true, "pg_sleep": true, "pg_sleep_for": true, "pg_sleep_until": true,
	"currval": true, "lastval": true, "pg_sequence_last_value": true, "current_query": true, "currtid2": true,
	"pg_blocking_pids": true, "pg_safe_snapshot_blocking_pids": true, "pg_isolation_test_session_is_blocked": true,
	"pg_lock_status": true, "pg_is_in_recovery": true, "pg_jit_available": true,
	"pg_database_size": true, "pg_relation_size": true, "pg_table_size": true, "pg_indexes_size": true,
	"pg_total_relation_size": true, "pg_tablespace_size": true, "pg_partition_tree": true, "pg_partition_ancestors": true,
	"pg_collation_actual_version": true, "pg_database_collation_actual_version": true,
	"pg_current_wal_lsn": true, "pg_current_wal_insert_lsn": true, "pg_current_wal_flush_lsn": true,
	"pg_last_wal_receive_lsn": true, "pg_last_wal_replay_lsn": true, "pg_last_xact_replay_timestamp": true,
	"pg_is_wal_replay_paused": true, "pg_get_wal_replay_pause_state": true, "pg_get_wal_resource_managers": true,
	"pg_xact_status": true, "txid_status": true, "pg_xact_commit_timestamp": true, "pg_xact_commit_timestamp_origin": true,
	"pg_last_committed_xact": true, "pg_prepared_xact": true, "pg_get_multixact_members": true,
	"pg_notification_queue_usage": true, "pg_get_shmem_allocations": true, "pg_get_backend_memory_contexts": true,
	"pg_stat_have_stats": true, "pg_stat_clear_snapshot": true, "pg_stat_get_recovery_prefetch": true,
	"pg_show_replication_origin_status": true, "pg_replication_origin_session_is_setup": true,
	"pg_control_checkpoint": true, "pg_control_init": true, "pg_control_recovery": true, "pg_control_system": true,
	"amvalidate": true,
}

// isPgReadOnly says whether a volatile C function only reads: listed, or one of the
// transaction's own statistics readers.
func isPgReadOnly(name string) bool {
	return pgReadOnlyVolatile[name] || strings.HasPrefix(name, "pg_stat_get_xact_")
}

// loadWriters reads the server's writers once per source; until it succeeds, every call is
// checked against the floor list only, and the load is tried again on the next call.
func (s *session) loadWriters(ctx context.Context) (map[string]bool, error) {
	s.src.mu.Lock()
	w := s.src.writers
	s.src.mu.Unlock()
	if w != nil {
		return w, nil
	}
	rows, err := s.rows(ctx, pgWritersSQL)
	if err != nil {
		return nil, fmt.Errorf("read the functions that may write from the catalog: %w", err)
	}
	w = map[string]bool{}
	for _, r := range rows {
		if !isPgReadOnly(r[0]) {
			w[r[0]] = true
		}
	}
	s.src.mu.Lock()
	s.src.writers = w
	s.src.mu.Unlock()
	return w, nil
}

// checkCalls refuses a statement that calls a function the server's catalog says may write.
func (s *session) checkCalls(ctx context.Context, calls []string) error {
	if len(calls) == 0 {
		return nil
	}
	w, err := s.loadWriters(ctx)
	if err != nil {
		return err
	}
	for _, c := range calls {
		if w[c] {
			return refused(fmt.Sprintf("%s() is refused: the server's catalog lists it as a volatile C function, which may write although the transaction only reads (index pages, large objects, sequences, locks, other sessions, files)", c))
		}
	}
	return nil
}
