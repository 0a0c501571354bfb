package cmdrules

// Defaults are the shipped rules, applied after the configured ones (so a configured rule
// wins) unless [terminal] default_rules = false. docs/security.md lists them with their reasons.
var Defaults = []string{
	// Rewriting published history cannot be undone from the working copy.
	"deny git push --force* # force push rewrites shared history",
	"deny git push {-f*,-[!-]*f*} # force push rewrites shared history",
	"deny git push +* # force push (+refspec) rewrites shared history",
	// A download piped into an interpreter runs code nobody has read.
	"deny {curl,wget,fetch,http,xh} | {sh,bash,dash,zsh,ksh,fish,sudo,python*,perl,ruby,node} # download piped into an interpreter",
	// Decisions belong to the user; a command cannot take them (the CLI also checks its ancestry).
	"deny toolhost {approve,deny,revoke} # approvals come from the user, not from a terminal",
	"deny {curl,wget,http,xh} *api/approvals* # approvals come from the user, not from a terminal",
	// Channels that run commands outside the terminal and its sandbox.
	"ask {crontab,at,batch,systemd-run} # schedules commands outside the terminal sandbox",
	"ask systemctl --user # starts services outside the terminal sandbox",
	"ask {tmux,screen} # a running tmux or screen server runs commands outside the terminal sandbox",
	"ask {dbus-send,gdbus,busctl} # D-Bus can start programs outside the terminal sandbox",
	// Privilege: the sandbox makes sudo fail; without it, the user decides.
	"ask {sudo,doas,su,pkexec} # runs as another user",
	// Recursive deletion of absolute, home or parent paths.
	"ask rm {-[rR]*,-[!-]*[rR]*,--recursive} {/*,~*,..*} # recursive delete outside the working directory",
}
