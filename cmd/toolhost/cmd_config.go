package main

import (
	"flag"
	"fmt"
	"os"

	"toolhost/internal/config"
)

// configCommands show the configuration.
var configCommands = group{title: "Configuration", commands: []cliCommand{
	{
		name: "config",
		help: "print the effective configuration (user file, then .toolhost.toml of the project, then flags), each value with its origin",
		flags: func(fs *flag.FlagSet) action {
			all := fs.Bool("all", false, "list the keys left at their default too, as comments")
			return func(inv *invocation) error { return printConfig(inv, *all) }
		},
	},
}}

// printConfig prints the effective configuration with the files it came from.
func printConfig(inv *invocation, all bool) error {
	cfg, err := loadConfig(inv.global)
	if err != nil {
		return err
	}
	if cfg.Workdir == "" {
		if cfg.Workdir, err = os.Getwd(); err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
		cfg.SetOrigin("workdir", config.Origin{Derived: "the current directory"})
	}
	fmt.Fprintf(inv.stdout, "# user config: %s\n", describeFile(cfg.Path, config.DefaultPath()))
	fmt.Fprintf(inv.stdout, "# project config: %s\n", describeFile(cfg.Project, config.ProjectFile+" in the working directory"))
	return cfg.Render(inv.stdout, all)
}

// describeFile names a configuration file that was read, or the one that was looked for.
func describeFile(read, lookedFor string) string {
	if read != "" {
		return read
	}
	return "none (" + lookedFor + " does not exist)"
}
