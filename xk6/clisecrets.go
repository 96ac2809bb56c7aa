package main

// Secrets never travel on k6's command line: a `-e PG_URL=postgres://user:password@…` sits in
// the process list, readable by every local user, for the whole run (ps shows k6's arguments).
// k6 merges -e values and the environment into __ENV, so the scenario cannot tell them apart;
// this binary can, before k6 starts. The rule is the wrappers' (scripts/common.sh
// wp_cli_secret, scripts/cli-secrets.mjs): a knob lib/ declares secret, a name ending in
// PASSWORD, PASSWD, SECRET or TOKEN, or a value holding a URL with credentials
// (scheme://user[:password]@…). Only `k6 run` is checked: `k6 archive` and `k6 inspect` are how
// scripts/k8s-archives and scripts/k6-preflight pass placeholders. test/integration/
// setup-hostile.test.mjs holds the list of secret knobs to lib's declarations.

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

var (
	secretKnobs = map[string]bool{"PG_URL": true, "ARANGO_PASSWORD": true, "RUN_SECRET": true, "MONGO_URL": true}
	secretName  = regexp.MustCompile(`(PASSWORD|PASSWD|SECRET|TOKEN)$`)
	credURL     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@`)
	envPair     = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)
)

// cliSecret returns the name of the first -e/--env value of a `k6 run` command line that is a
// secret, or "".
func cliSecret(args []string) string {
	run := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !run {
			if a == "run" {
				run = true
			} else if !strings.HasPrefix(a, "-") {
				return "" // another subcommand
			}
			continue
		}
		kv := ""
		switch {
		case a == "-e" || a == "--env":
			if i+1 < len(args) {
				i++
				kv = args[i]
			}
		case strings.HasPrefix(a, "--env="):
			kv = strings.TrimPrefix(a, "--env=")
		case strings.HasPrefix(a, "-e") && len(a) > 2:
			kv = a[2:]
		}
		m := envPair.FindStringSubmatch(kv)
		if m == nil {
			continue
		}
		if secretKnobs[m[1]] || secretName.MatchString(m[1]) || credURL.MatchString(m[2]) {
			return m[1]
		}
	}
	return ""
}

// refuseCliSecrets ends the process with one line and exit code 107 (bad input, as the pack
// refuses every bad knob) when a secret was given with -e; the value is never shown.
func refuseCliSecrets() {
	if name := cliSecret(os.Args[1:]); name != "" {
		fmt.Fprintf(os.Stderr, "k6-writepath: %s given with -e is not allowed: a secret on the command line is visible to every local user in the process list for the whole run; export %s=… in the environment and run again without -e %s\n", name, name, name)
		os.Exit(107)
	}
}
