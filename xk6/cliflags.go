package main

// The knobs plan a run (lib/config.js): its VUs, batches, stages and bounds. k6's own options
// that replace or bend that plan — --vus, --iterations, --duration, --stage and their K6_*
// environment variables — and --http-debug (it prints credentials) are refused here, before
// k6 starts, with one line and exit 107 like every other bad input (issue 27 class 2). The
// scenario sees k6's options only in setup, where it can end the run only as an abort (108),
// and k6 v1.8.1 drops --vus without a word when a script defines scenarios: the user asked for
// 5 VUs and got the knobs' 2. Stock k6 still gets the setup refusal (docs/reliability.md).

import (
	"fmt"
	"os"
	"strings"
)

// planFlag: a k6 run option the knobs own, and the knob(s) to use instead.
type planFlag struct {
	long, short, env, instead string
}

var planFlags = []planFlag{
	{"vus", "u", "K6_VUS", "-e VUS=… (or STAGES, MAX_VUS)"},
	{"iterations", "i", "K6_ITERATIONS", "the plan's knobs (DOCS, OVERWRITE_BATCHES, MIXED_BATCHES, REQUESTS)"},
	{"duration", "d", "K6_DURATION", "-e MAX_DURATION=… or -e STAGES=…"},
	{"stage", "s", "K6_STAGES", "-e STAGES=… or -e RATE_STAGES=…"},
}

func truthy(v string) bool { return v == "1" || v == "true" }

// cliPlanFlag returns the refusal line for the first option of a `k6 run` command line (or the
// environment) that the knobs own, or "".
func cliPlanFlag(args []string, getenv func(string) string) string {
	run := false
	allowDebug := truthy(getenv("ALLOW_HTTP_DEBUG"))
	debug := ""
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
		if a == "--" {
			break
		}
		// -e ALLOW_HTTP_DEBUG=1 counts as much as the environment (-e wins in k6's __ENV).
		kv := ""
		switch {
		case a == "-e" || a == "--env":
			if i+1 < len(args) {
				kv = args[i+1]
			}
		case strings.HasPrefix(a, "--env="):
			kv = strings.TrimPrefix(a, "--env=")
		case strings.HasPrefix(a, "-e") && len(a) > 2:
			kv = a[2:]
		}
		if strings.HasPrefix(kv, "ALLOW_HTTP_DEBUG=") {
			allowDebug = truthy(strings.TrimPrefix(kv, "ALLOW_HTTP_DEBUG="))
		}
		if a == "--http-debug" || strings.HasPrefix(a, "--http-debug=") {
			debug = a
		}
		for _, f := range planFlags {
			if a == "--"+f.long || strings.HasPrefix(a, "--"+f.long+"=") || a == "-"+f.short || (strings.HasPrefix(a, "-"+f.short) && !strings.HasPrefix(a, "--") && len(a) > 2 && a[2] >= '0' && a[2] <= '9') {
				return fmt.Sprintf("k6-writepath: --%s is not allowed: the knobs plan the run and k6 would replace or ignore that plan; use %s instead", f.long, f.instead)
			}
		}
	}
	if !run {
		return ""
	}
	for _, f := range planFlags {
		if v := getenv(f.env); v != "" {
			return fmt.Sprintf("k6-writepath: %s=%q is not allowed (k6's --%s): the knobs plan the run and k6 would replace or ignore that plan; unset it and use %s instead", f.env, v, f.long, f.instead)
		}
	}
	if debug == "" && getenv("K6_HTTP_DEBUG") != "" && getenv("K6_HTTP_DEBUG") != "false" {
		debug = "K6_HTTP_DEBUG=" + getenv("K6_HTTP_DEBUG")
	}
	if debug != "" && !allowDebug {
		return fmt.Sprintf("k6-writepath: %s is not allowed: it prints credentials (Authorization headers, login bodies) to the terminal; set ALLOW_HTTP_DEBUG=1 to accept that", debug)
	}
	return ""
}

func refusePlanFlags() {
	if line := cliPlanFlag(os.Args[1:], os.Getenv); line != "" {
		fmt.Fprintln(os.Stderr, line)
		os.Exit(107)
	}
}
