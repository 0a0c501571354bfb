package authz

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"toolhost/internal/lazyregexp"

	"toolhost/store"
)

// Token is an HTTP client credential as stored: its name, tier and rate, never the secret.
type Token struct {
	Name    string    `json:"name"`
	Tier    Tier      `json:"tier"`
	Rate    string    `json:"rate,omitempty"`
	Created time.Time `json:"created"`
	// Hash is the hex SHA-256 of the secret. The secret is 192 random bits, so an unsalted
	// fast hash is as strong as the secret itself and lets a request be looked up directly.
	Hash string `json:"hash"`
}

// Principal is the principal a request with this token acts as.
func (t Token) Principal() Principal { return Principal{Name: t.Name, Tier: t.Tier, Rate: t.Rate} }

// Token errors.
var (
	// ErrTokenExists: a token of that name exists; revoke it first.
	ErrTokenExists = errors.New("a token of that name exists")
	// ErrNoToken: no token has that name.
	ErrNoToken = errors.New("no such token")
	// ErrBadToken: the secret matches no token (unknown or revoked).
	ErrBadToken = errors.New("unknown or revoked token")
)

// reservedNames are principals that are not tokens.
var reservedNames = []string{"stdio", "default", "anonymous"}

var tokenName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$`)

// Tokens keeps the HTTP client tokens in the store. Every request reads its token from the
// store (one read transaction, keyed by the hash), so a token revoked by the CLI in another
// process is refused on its very next request; a cache keyed on the file's mtime could miss a
// revocation written within the same clock tick.
type Tokens struct {
	st *store.Store
}

// NewTokens returns the token table of st.
func NewTokens(st *store.Store) *Tokens { return &Tokens{st: st} }

var tokenBucket = store.Path{store.BucketTokens}

// Create makes a token and returns its secret, which is shown once and never stored.
func (ts *Tokens) Create(ctx context.Context, name string, tier Tier, rate string) (string, Token, error) {
	if !tokenName.MatchString(name) {
		return "", Token{}, fmt.Errorf("token name %q: use 1-64 letters, digits and . _ @ -, starting with a letter or digit", name)
	}
	if slices.Contains(reservedNames, name) {
		return "", Token{}, fmt.Errorf("token name %q is reserved", name)
	}
	if _, err := ParseTier(string(tier)); err != nil {
		return "", Token{}, err
	}
	var b [24]byte
	rand.Read(b[:])
	secret := "th_" + hex.EncodeToString(b[:])
	t := Token{Name: name, Tier: tier, Rate: rate, Created: time.Now().UTC().Truncate(time.Second), Hash: HashToken(secret)}
	err := ts.st.Update(ctx, func(tx *store.Tx) error {
		var clash bool
		err := tx.ForEach(tokenBucket, func(_ string, v []byte) error {
			var t Token
			if err := json.Unmarshal(v, &t); err != nil {
				return err
			}
			clash = clash || t.Name == name
			return nil
		})
		if err != nil {
			return err
		}
		if clash {
			return fmt.Errorf("%w: %s", ErrTokenExists, name)
		}
		return tx.PutJSON(tokenBucket, t.Hash, t)
	})
	if err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

// List returns the tokens by name.
func (ts *Tokens) List(ctx context.Context) ([]Token, error) {
	var out []Token
	err := ts.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(tokenBucket, func(_ string, v []byte) error {
			var t Token
			if err := json.Unmarshal(v, &t); err != nil {
				return err
			}
			out = append(out, t)
			return nil
		})
	})
	slices.SortFunc(out, func(a, b Token) int { return strings.Compare(a.Name, b.Name) })
	return out, err
}

// Revoke deletes the token named name; its next request is refused.
func (ts *Tokens) Revoke(ctx context.Context, name string) error {
	return ts.st.Update(ctx, func(tx *store.Tx) error {
		var key string
		err := tx.ForEach(tokenBucket, func(k string, v []byte) error {
			var t Token
			if json.Unmarshal(v, &t) == nil && t.Name == name {
				key = k
			}
			return nil
		})
		if err != nil {
			return err
		}
		if key == "" {
			return fmt.Errorf("%w: %s", ErrNoToken, name)
		}
		return tx.Delete(tokenBucket, key)
	})
}

// TokenUpdate is a change of a token's tier or rate; a nil field keeps its value. Rate is
// checked by the caller (the engine parses rates; authz does not import it), "" meaning the
// default rate ([limits] per_principal).
type TokenUpdate struct {
	Tier *Tier
	Rate *string
}

// Update changes the tier or rate of the token named name in one transaction and appends a
// token_updated audit record naming who did it (by, an Origin's String). It returns the token
// before and after. Requests resolve their token on every call (Resolve), so the token's next
// call runs at the new tier and rate, in this process and in every other one on the store.
//
// Update takes the operator's word: only operator paths call it (the CLI's operator check,
// the console's session and peer check), never anything a model's call reaches.
func (ts *Tokens) Update(ctx context.Context, name string, u TokenUpdate, by string) (before, after Token, err error) {
	if u.Tier != nil {
		if _, err := ParseTier(string(*u.Tier)); err != nil {
			return Token{}, Token{}, err
		}
	}
	err = ts.st.Update(ctx, func(tx *store.Tx) error {
		var key string
		err := tx.ForEach(tokenBucket, func(k string, v []byte) error {
			var t Token
			if json.Unmarshal(v, &t) == nil && t.Name == name {
				key, before = k, t
			}
			return nil
		})
		if err != nil {
			return err
		}
		if key == "" {
			return fmt.Errorf("%w: %s", ErrNoToken, name)
		}
		after = before
		if u.Tier != nil {
			after.Tier = *u.Tier
		}
		if u.Rate != nil {
			after.Rate = *u.Rate
		}
		return tx.PutJSON(tokenBucket, key, after)
	})
	if err != nil {
		return Token{}, Token{}, err
	}
	rec := AuditRecord{Time: time.Now().UTC(), Event: "token_updated", Token: after.Name, Tier: after.Tier, Rate: after.Rate, By: by, PID: os.Getpid()}
	if err := ts.st.AppendAudit(ctx, rec); err != nil {
		return before, after, fmt.Errorf("token %s was changed, but its audit record was not written: %w", name, err)
	}
	return before, after, nil
}

// Resolve returns the principal of a secret, or ErrBadToken.
func (ts *Tokens) Resolve(ctx context.Context, secret string) (Principal, error) {
	var t Token
	var found bool
	err := ts.st.View(ctx, func(tx *store.Tx) error {
		var err error
		found, err = tx.GetJSON(tokenBucket, HashToken(secret), &t)
		return err
	})
	if err != nil {
		return Principal{}, fmt.Errorf("resolve token: %w", err)
	}
	if !found {
		return Principal{}, ErrBadToken
	}
	return t.Principal(), nil
}

// HashToken is the stored form of a secret.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
