package app

import (
	"crypto/rand"
	"encoding/hex"
)

func randomToken() string {
	var b [24]byte
	rand.Read(b[:])
	return "th_" + hex.EncodeToString(b[:])
}
