/*
Copyright The Karpenter CloudStack Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package process

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/karpenter-cloudstack/karpenter-provider-cloudstack/e2e/environment/component"
)

// The test binary doubles as the process under test, so the tests need nothing installed.
const helperEnv = "PROCESS_TEST_HELPER"

func TestMain(m *testing.M) {
	switch mode := os.Getenv(helperEnv); {
	case mode == "":
		os.Exit(m.Run())
	case strings.HasPrefix(mode, "serve="):
		fmt.Println("serving")
		mux := http.NewServeMux()
		mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		_ = http.ListenAndServe("127.0.0.1:"+strings.TrimPrefix(mode, "serve="), mux)
		os.Exit(1)
	case mode == "crash":
		fmt.Println("boom: bad configuration")
		os.Exit(3)
	case mode == "stubborn":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ignoring SIGTERM")
		select {}
	default:
		select {}
	}
}

func helper(name, mode string) component.Component {
	return component.Component{Name: name, Binary: os.Args[0], Env: []string{helperEnv + "=" + mode}}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

func newRunner(t *testing.T) *Runner {
	t.Helper()
	r := NewRunner(t.TempDir())
	r.grace = 2 * time.Second
	t.Cleanup(func() { stopAll(r) })
	return r
}

func pidOf(t *testing.T, r *Runner, name string) int {
	t.Helper()
	pf, err := readPidFile(r.PidPath(name))
	if err != nil {
		t.Fatalf("reading pid file of %s, %v", name, err)
	}
	return pf.pid
}

func TestStartIsIdempotentAndStopRemovesTheProcessAndItsPidFile(t *testing.T) {
	r := newRunner(t)
	ctx := t.Context()
	if err := r.Start(ctx, helper("svc", "sleep")); err != nil {
		t.Fatal(err)
	}
	first := pidOf(t, r, "svc")
	if err := r.Start(ctx, helper("svc", "sleep")); err != nil {
		t.Fatal(err)
	}
	if again := pidOf(t, r, "svc"); again != first {
		t.Fatalf("second Start spawned pid %d next to %d", again, first)
	}
	if !running(r, "svc") {
		t.Fatal("not running after Start")
	}
	if err := r.Stop("svc"); err != nil {
		t.Fatal(err)
	}
	if running(r, "svc") || syscall.Kill(first, 0) == nil {
		t.Fatal("still running after Stop")
	}
	if _, err := os.Stat(r.PidPath("svc")); !os.IsNotExist(err) {
		t.Fatalf("pid file left behind, stat error %v", err)
	}
	if err := r.Stop("svc"); err != nil {
		t.Fatalf("stopping twice, %v", err)
	}
}

func TestEndOfContextKillsBoundProcesses(t *testing.T) {
	r := newRunner(t)
	ctx, cancel := context.WithCancel(t.Context())
	if err := r.Start(ctx, helper("svc", "sleep")); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-r.Exited("svc"):
	case <-time.After(5 * time.Second):
		t.Fatal("process outlived its context")
	}
}

func TestStopEscalatesToSIGKILLAfterTheGracePeriod(t *testing.T) {
	r := newRunner(t)
	r.grace = 300 * time.Millisecond
	if err := r.Start(t.Context(), helper("stubborn", "stubborn")); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, r, "stubborn", "ignoring SIGTERM")
	pid := pidOf(t, r, "stubborn")
	if err := r.Stop("stubborn"); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatal("a process ignoring SIGTERM survived Stop")
	}
}

func TestStartAfterKillStartsANewProcessAndKeepsOneLog(t *testing.T) {
	r := newRunner(t)
	port := freePort(t)
	c := helper("svc", fmt.Sprintf("serve=%d", port))
	c.ReadyURL = fmt.Sprintf("http://127.0.0.1:%d/ready", port)
	if err := r.Start(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitReady(t.Context(), "svc", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	before := pidOf(t, r, "svc")
	if err := r.Kill("svc"); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitReady(t.Context(), "svc", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if after := pidOf(t, r, "svc"); after == before {
		t.Fatalf("restart kept pid %d", after)
	}
	log, _ := os.ReadFile(r.LogPath("svc"))
	if got := strings.Count(string(log), "starting svc"); got != 2 {
		t.Fatalf("log holds %d start markers, want 2:\n%s", got, log)
	}
}

func TestWaitReadyFailsFastWithTheLogWhenTheProcessExits(t *testing.T) {
	r := newRunner(t)
	c := helper("crasher", "crash")
	c.ReadyURL = fmt.Sprintf("http://127.0.0.1:%d/ready", freePort(t))
	if err := r.Start(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := r.WaitReady(t.Context(), "crasher", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "exited") || !strings.Contains(err.Error(), "boom: bad configuration") {
		t.Fatalf("error = %v, want the exit and the log tail", err)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("waited %s for a process that had exited", waited)
	}
}

func TestDetachedProcessesAreFoundAndStoppedThroughTheirPidFiles(t *testing.T) {
	dir := t.TempDir()
	up := NewDetachedRunner(dir)
	if err := up.Start(t.Context(), helper("svc", "sleep")); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, up, "svc")
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })

	again := NewDetachedRunner(dir)
	if err := again.Start(t.Context(), helper("svc", "sleep")); err != nil {
		t.Fatal(err)
	}
	if got := pidOf(t, again, "svc"); got != pid {
		t.Fatalf("a second `up` started pid %d next to %d", got, pid)
	}
	down := NewDetachedRunner(dir)
	if !running(down, "svc") {
		t.Fatal("a new Runner does not see the detached process")
	}
	if err := down.Stop("svc"); err != nil {
		t.Fatal(err)
	}
	if !waitGone(func() bool { return syscall.Kill(pid, 0) != nil }, nil, 5*time.Second) {
		t.Fatal("detached process still runs after Stop")
	}
}

func TestStopLeavesAlonePidsReusedByAnotherBinary(t *testing.T) {
	r := NewDetachedRunner(t.TempDir())
	if err := os.MkdirAll(filepath.Dir(r.PidPath("svc")), 0o755); err != nil {
		t.Fatal(err)
	}
	// Our own pid, recorded as if it ran something else: Stop must not signal it.
	if err := os.WriteFile(r.PidPath("svc"), fmt.Appendf(nil, "%d\n/usr/bin/not-this\n", os.Getpid()), 0o644); err != nil {
		t.Fatal(err)
	}
	if running(r, "svc") {
		t.Fatal("a reused pid counts as running")
	}
	if err := r.Stop("svc"); err != nil {
		t.Fatal(err)
	}
}

func TestTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]string{1: "four", 2: "three\nfour", 10: "one\ntwo\nthree\nfour"} {
		if got := Tail(path, n); got != want {
			t.Errorf("Tail(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Tail(filepath.Join(t.TempDir(), "missing"), 3); !strings.HasPrefix(got, "(no log") {
		t.Errorf("Tail of a missing file = %q", got)
	}
}

func waitForLog(t *testing.T, r *Runner, name, text string) {
	t.Helper()
	logged := func() bool {
		log, _ := os.ReadFile(r.LogPath(name))
		return strings.Contains(string(log), text)
	}
	if !waitGone(logged, nil, 10*time.Second) {
		t.Fatalf("%s never logged %q", name, text)
	}
}

func TestARunIsAbandonedOnlyOnceItsOwnerIsGone(t *testing.T) {
	mine, theirs, unclaimed := t.TempDir(), t.TempDir(), t.TempDir()
	if err := ClaimRun(mine); err != nil {
		t.Fatal(err)
	}
	if Abandoned(mine) {
		t.Error("a run of a live owner counts as abandoned")
	}
	// The owner record of a process that exited: pid 1 never runs the test binary.
	exe, _ := os.Executable()
	if err := writePidFile(filepath.Join(theirs, ownerFile), pidFile{pid: 1, binary: exe}); err != nil {
		t.Fatal(err)
	}
	if !Abandoned(theirs) {
		t.Error("a run whose owner is gone is not abandoned")
	}
	if Abandoned(unclaimed) {
		t.Error("an unclaimed folder counts as abandoned")
	}
	if err := Release(theirs); err != nil || Abandoned(theirs) {
		t.Errorf("after Release: err %v, abandoned %v", err, Abandoned(theirs))
	}
}

func TestRecordedListsProcessesOfAnEarlierRunner(t *testing.T) {
	dir := t.TempDir()
	first := NewRunner(dir)
	t.Cleanup(func() { stopAll(first) })
	for _, n := range []string{"a", "b"} {
		if err := first.Start(t.Context(), helper(n, "sleep")); err != nil {
			t.Fatal(err)
		}
	}
	got := NewRunner(dir).Recorded()
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("recorded = %v", got)
	}
}

func stopAll(r *Runner) {
	for _, n := range r.Recorded() {
		_ = r.Stop(n)
	}
}

// running reports whether the pid file of name records a live process of its binary.
func running(r *Runner, name string) bool {
	pf, err := readPidFile(r.PidPath(name))
	return err == nil && pf.matches()
}
