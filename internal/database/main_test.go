package database

import (
	"os"
	"testing"

	"toolhost/internal/database/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
