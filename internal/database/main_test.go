package database

import (
	"os"
	"testing"

	"toolhost/internal/database/pgtest"
)

// pg is the PostgreSQL server the package's tests share; nil when it could not start.
var pg *pgtest.Server

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &pg)) }
