package main

import (
	"flag"
	"strings"
)

// addSessionFlags defines -c/--continue, --resume/-r [ID], --session-id and --fork-session.
func addSessionFlags(fs *flag.FlagSet, opts *Options) {
	fs.BoolVar(&opts.Continue, "c", false, "")
	fs.BoolVar(&opts.Continue, "continue", false, "")
	fs.Var(resumeFlag{opts}, "resume", "")
	fs.Var(resumeFlag{opts}, "r", "")
	fs.StringVar(&opts.SessionID, "session-id", "", "")
	fs.BoolVar(&opts.ForkSession, "fork-session", false, "")
}

// resumeFlag is --resume, a boolean flag for the list unless given a value (joinResumeValue joins "--resume ID").
type resumeFlag struct{ opts *Options }

// String returns the session id given.
func (f resumeFlag) String() string {
	if f.opts == nil {
		return ""
	}
	return f.opts.Resume
}

// Set records the id, or the wish to pick one when the flag stands alone.
func (f resumeFlag) Set(value string) error {
	f.opts.Resume, f.opts.ResumePick = value, value == "true"
	if f.opts.ResumePick {
		f.opts.Resume = ""
	}
	return nil
}

// IsBoolFlag lets --resume stand alone.
func (f resumeFlag) IsBoolFlag() bool { return true }

// joinResumeValue rewrites "--resume ID" as "--resume=ID" when the next word is no flag and holds no space.
func joinResumeValue(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if (name == "resume" || name == "r") && a != name && i+1 < len(args) {
			if next := args[i+1]; next != "" && !strings.HasPrefix(next, "-") && !strings.ContainsAny(next, " \t\n") {
				out = append(out, a+"="+next)
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
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
