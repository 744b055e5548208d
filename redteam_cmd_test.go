package main

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestSandboxCargoAndRustupBinaries checks that a sandboxed command can
// write the caches of Cargo and pnpm but not the programs and scripts
// beside them that later run outside the sandbox.
func TestSandboxCargoAndRustupBinaries(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	writeTree(t, tr.home, map[string]string{".cargo/bin/cargo": "BIN\n", ".cargo/env": "ENV\n", ".cargo/registry/cache/x": "C\n",
		".cargo/git/db/x": "G\n", ".rustup/toolchains/x/bin/rustc": "BIN\n", ".local/share/pnpm/pnpm": "BIN\n", ".local/share/pnpm/store/x": "S\n"})
	sb := tr.sandbox(t, SandboxSettings{})
	for rel, ok := range map[string]bool{".cargo/registry/cache/new": true, ".cargo/git/db/new": true, ".local/share/pnpm/store/new": true,
		".cargo/bin/evil": false, ".cargo/env": false, ".cargo/config.toml": false, ".rustup/toolchains/x/bin/rustc": false, ".local/share/pnpm/evil": false} {
		out, err := runForeground(context.Background(), sb, tr.ws, fmt.Sprintf("echo x >> %s/%s", tr.home, rel), false, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if out.IsError == ok {
			t.Errorf("writing ~/%s: IsError = %v, want %v; output %q", rel, out.IsError, !ok, out.Text)
		}
	}
}
