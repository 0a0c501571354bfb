package authz

// Windows keeps credentials in the profile's AppData: the Credential Manager's files, the DPAPI
// master keys that decrypt them, and the browsers' profiles.
func init() {
	DefaultSecretPaths = append(DefaultSecretPaths,
		"~/AppData/Roaming/Microsoft/Credentials",
		"~/AppData/Local/Microsoft/Credentials",
		"~/AppData/Roaming/Microsoft/Protect",
		"~/AppData/Local/Google/Chrome/User Data",
		"~/AppData/Local/Chromium/User Data",
		"~/AppData/Local/Microsoft/Edge/User Data",
		"~/AppData/Local/BraveSoftware",
		"~/AppData/Roaming/Mozilla/Firefox",
	)
}
