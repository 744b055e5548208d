package main

import (
	"flag"
	"slices"
	"strings"
)

// addSessionFlags defines -c/--continue, --resume/-r [ID], --session-id and --fork-session.
func addSessionFlags(fs *flag.FlagSet, opts *Options) {
	fs.BoolVar(&opts.Continue, "continue", false, "continue the newest session of this workspace (or -c)")
	fs.BoolVar(&opts.Continue, "c", false, "")
	// --resume alone (a boolean flag: "true") asks for the list; joinResumeValue has joined "--resume ID".
	resume := func(value string) error {
		opts.Resume, opts.ResumePick = value, value == "true"
		if opts.ResumePick {
			opts.Resume = ""
		}
		return nil
	}
	fs.BoolFunc("resume", "continue the session `[ID]`; without an ID, list the sessions to pick one (or -r)", resume)
	fs.BoolFunc("r", "", resume)
	fs.StringVar(&opts.SessionID, "session-id", "", "the `UUID` of the new session")
	fs.BoolVar(&opts.ForkSession, "fork-session", false, "with --continue or --resume: continue into a new session")
}

// joinResumeValue rewrites "--resume ID" as "--resume=ID" when the next word is no flag and holds no space.
func joinResumeValue(args []string) []string {
	args = slices.Clone(args)
	for i := 0; i+1 < len(args); i++ {
		name, next := strings.TrimLeft(args[i], "-"), args[i+1]
		if (name == "resume" || name == "r") && name != args[i] && next != "" && !strings.HasPrefix(next, "-") && !strings.ContainsAny(next, " \t\n") {
			args[i] += "=" + next
			args = slices.Delete(args, i+1, i+2)
		}
	}
	return args
}

// checkSessionFlags rejects session flags that cannot go together.
func checkSessionFlags(opts Options) error {
	resuming := opts.Continue || opts.Resume != "" || opts.ResumePick
	switch {
	case opts.Continue && (opts.Resume != "" || opts.ResumePick):
		return usageErrorf("use either --continue or --resume, not both")
	case opts.ForkSession && !resuming:
		return usageErrorf("--fork-session needs --continue or --resume")
	case opts.SessionID != "" && !isSessionID(opts.SessionID):
		return usageErrorf("--session-id must be a UUID, such as %s", newSessionID())
	case opts.SessionID != "" && resuming && !opts.ForkSession:
		return usageErrorf("--session-id with --continue or --resume needs --fork-session (the resumed session keeps its id)")
	}
	return nil
}
