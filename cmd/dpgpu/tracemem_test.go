package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTracebackMemory: solve --traceback within a --traceback-memory too
// small for the grid traces back from checkpoints, gives the solution of
// the whole-grid traceback, and says so; check reports the layout; a bad
// size is a usage error (exit 2).
func TestTracebackMemory(t *testing.T) {
	type solved struct {
		Answer      int64
		EmittedText string `json:"emitted_text"`
		Path        [][2]int64
		Traceback   *struct {
			Layout     string
			Bands      int64
			Recomputed *int `json:"bands_recomputed"`
		}
	}
	solve := func(mem string) solved {
		t.Helper()
		out, errs, code := dpgpu(t, "solve", "--backend", "cpu", "--json", "--traceback", "--traceback-memory", mem, "testdata/lcs.dp")
		if code != 0 {
			t.Fatalf("--traceback-memory %s: exit %d: %s", mem, code, errs)
		}
		var s solved
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		return s
	}
	whole, small := solve("1G"), solve("2k")
	if whole.Traceback != nil {
		t.Errorf("1G: %+v", whole.Traceback)
	}
	if small.Traceback == nil || small.Traceback.Layout != "checkpoints" || small.Traceback.Bands < 2 || small.Traceback.Recomputed == nil {
		t.Fatalf("2k: %+v", small.Traceback)
	}
	if small.Answer != whole.Answer || small.EmittedText != whole.EmittedText || len(small.Path) != len(whole.Path) {
		t.Errorf("2k: %d %q (%d cells), 1G: %d %q (%d cells)", small.Answer, small.EmittedText, len(small.Path), whole.Answer, whole.EmittedText, len(whole.Path))
	}
	out, errs, code := dpgpu(t, "check", "--traceback-memory", "2k", "testdata/lcs.dp")
	if code != 0 || !strings.Contains(out, "traceback  linear memory") {
		t.Errorf("check: exit %d: %s%s", code, out, errs)
	}
	for _, bad := range []string{"lots", "-1G", "0"} {
		if _, errs, code := dpgpu(t, "solve", "--backend", "cpu", "--traceback", "--traceback-memory", bad, "testdata/lcs.dp"); code != 2 || !strings.Contains(errs, "--traceback-memory") {
			t.Errorf("--traceback-memory %s: exit %d: %s", bad, code, errs)
		}
	}
	for _, bad := range []string{"lots", "-1G", "0"} {
		if _, errs, code := dpgpu(t, "solve", "--backend", "cpu", "--traceback", "--device-memory", bad, "testdata/lcs.dp"); code != 2 || !strings.Contains(errs, "--device-memory") {
			t.Errorf("--device-memory %s: exit %d: %s", bad, code, errs)
		}
	}
	if _, errs, code := dpgpu(t, "solve", "--backend", "cpu", "--traceback", "--traceback-memory", "10", "testdata/lcs.dp"); code != 2 || !strings.Contains(errs, "raise --traceback-memory") {
		t.Errorf("10 bytes: exit %d: %s", code, errs)
	}
}
