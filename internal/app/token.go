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

// RandomSecret is a fresh random secret in the token's format.
func RandomSecret() string { return randomToken() }
