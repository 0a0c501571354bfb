package consolidated

import (
	"os"
	"testing"

	"toolhost/internal/database/pgtest"
)

// TestMain stops the PostgreSQL server the database_operations tests start on first use.
func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
