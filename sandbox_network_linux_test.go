package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// networkAttack is a model-written script that tries every kind of socket
// and terminal the sandbox must close; argv: TCP port, UDP port, a Unix
// socket's path, an abstract socket's name, another terminal's number.
const networkAttack = `
import fcntl, os, socket, sys, termios
tcp, udp, path, abstract, pts = sys.argv[1:6]
def attempt(name, f):
    try:
        f()
        print("ESCAPED", name)
    except OSError as e:
        print("blocked", name, e)
def send(family, kind, proto, addr):
    s = socket.socket(family, kind, proto)
    s.settimeout(3)
    s.connect(addr)
    s.sendall(b"LEAK")
attempt("tcp", lambda: send(socket.AF_INET, socket.SOCK_STREAM, 0, ("127.0.0.1", int(tcp))))
attempt("mptcp", lambda: send(socket.AF_INET, socket.SOCK_STREAM, 262, ("127.0.0.1", int(tcp))))
attempt("unix", lambda: send(socket.AF_UNIX, socket.SOCK_STREAM, 0, path))
attempt("abstract", lambda: send(socket.AF_UNIX, socket.SOCK_STREAM, 0, "\0" + abstract))
attempt("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).sendto(b"\x08\0\xf7\xff\0\0\0\0", ("127.0.0.1", 0)))
attempt("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))
attempt("vsock", lambda: socket.socket(40, socket.SOCK_STREAM))
attempt("dns", lambda: socket.getaddrinfo("example.com", 80))
for i in range(3):
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"LEAK", ("127.0.0.1", int(udp)))
    except OSError as e:
        print("blocked udp", e)
def other_terminal():
    fd = os.open("/dev/pts/" + pts, os.O_WRONLY)
    os.write(fd, b"\x1b]52;c;TEVBSw==\x07LEAK")
attempt("other terminal", other_terminal)
attempt("controlling terminal", lambda: os.open("/dev/tty", os.O_RDWR))
def type_into_own():
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSTI, b"x")
attempt("TIOCSTI", type_into_own)
`

// TestSandboxNetworkAndSockets runs a script that reaches for a TCP and a
// UDP server on the host's loopback, over MPTCP and raw and packet
// sockets, for a Unix socket and an abstract one, a real tmux server (which
// would run any command outside the sandbox), another terminal (an OSC 52
// write sets the clipboard), the controlling terminal and TIOCSTI: every
// one is refused, and nothing arrives.
func TestSandboxNetworkAndSockets(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		var got strings.Builder
		var mu sync.Mutex
		record := func(what string) { mu.Lock(); got.WriteString(what + "\n"); mu.Unlock() }
		tcp := listen(t, "tcp", "127.0.0.1:0", record)
		unixPath := filepath.Join(r.home, "agent.sock")
		unixSock := listen(t, "unix", unixPath, record)
		os.Chown(unixPath, r.user.uid, r.user.uid)
		abstract := fmt.Sprintf("minicode-test-%d", time.Now().UnixNano())
		listen(t, "unix", "@"+abstract, record)
		udp, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer udp.Close()
		go func() {
			buf := make([]byte, 100)
			for {
				n, _, err := udp.ReadFrom(buf)
				if err != nil {
					return
				}
				record("udp: " + string(buf[:n]))
			}
		}()
		master, pts := otherTerminal(t, r.user.uid)
		tmux := filepath.Join(r.home, "tmux.sock")
		r.shell(t, "tmux -S "+tmux+" -f /dev/null new-session -d 'sleep 300'")
		defer r.command(t, "tmux", "-S", tmux, "kill-server").Run()
		writeFile(t, filepath.Join(r.ws, "net_test.py"), networkAttack)
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, fmt.Sprintf("python3 net_test.py %d %d %s %s %d; tmux -S %s run-shell 'touch %s/PWNED' && echo ESCAPED tmux",
			tcp.Addr().(*net.TCPAddr).Port, udp.LocalAddr().(*net.UDPAddr).Port, unixSock.Addr(), abstract, pts, tmux, r.ws)), "\n")
		if strings.Contains(out, "ESCAPED") {
			t.Errorf("a socket or terminal was reached: %s", out)
		}
		mustContain(t, out, "blocked tcp", "blocked unix", "blocked abstract", "blocked TIOCSTI", "blocked other terminal")
		if _, err := os.Stat(filepath.Join(r.ws, "PWNED")); err == nil {
			t.Error("the tmux server ran a command for the sandbox")
		}
		if n, _ := syscall.Read(int(master.Fd()), make([]byte, 100)); n > 0 {
			t.Error("the other terminal received the sandbox's write")
		}
		udp.SetReadDeadline(time.Now().Add(100 * time.Millisecond)) // what was sent has arrived by now
		mu.Lock()
		defer mu.Unlock()
		if got.Len() > 0 {
			t.Errorf("the host's servers received: %s", got.String())
		}
	})
}

// listen starts a server that records whatever a client sends it.
func listen(t *testing.T, network, addr string, record func(string)) net.Listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			record(network + " connection from the sandbox")
			c.Close()
		}
	}()
	return ln
}

// otherTerminal opens a pseudo-terminal, as another program's terminal,
// whose slave the user may write; it returns the master (non-blocking)
// and the slave's number.
func otherTerminal(t *testing.T, uid int) (*os.File, uint32) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { master.Close() })
	var n, unlock uint32
	if err := ioctl(int(master.Fd()), syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatal(err)
	}
	if err := ioctl(int(master.Fd()), syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(fmt.Sprintf("/dev/pts/%d", n), uid, uid); err != nil {
		t.Fatal(err)
	}
	return master, n
}
