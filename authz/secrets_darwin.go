package authz

// macOS keeps credentials in ~/Library too: the keychains, the browsers' profiles (cookies,
// saved passwords) and the cookie jar.
func init() {
	DefaultSecretPaths = append(DefaultSecretPaths,
		"~/Library/Keychains",
		"~/Library/Cookies",
		"~/Library/Application Support/Google/Chrome",
		"~/Library/Application Support/Chromium",
		"~/Library/Application Support/Microsoft Edge",
		"~/Library/Application Support/BraveSoftware",
		"~/Library/Application Support/Firefox",
	)
}
