package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckMemoryFlags: `check --maintain` estimates a run that keeps the
// grid (what solve --grid or --traceback allocate), and --threads the
// working buffers of that many workers; without them the grid is not
// counted.
func TestCheckMemoryFlags(t *testing.T) {
	type mem struct {
		Host    int64 `json:"host_bytes"`
		Grid    int64 `json:"host_grid_bytes"`
		Work    int64 `json:"host_work_bytes"`
		Threads int   `json:"threads"`
	}
	check := func(args ...string) mem {
		t.Helper()
		out, errOut, code := dpgpu(t, append([]string{"check", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("check %v: exit %d: %s", args, code, errOut)
		}
		var v struct {
			Memory mem `json:"memory"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("check %v: %v\n%s", args, err, out)
		}
		return v.Memory
	}
	plain := check("lcs", "-t", "1")
	kept := check("lcs", "--maintain", "-t", "1")
	four := check("lcs", "-t", "4")
	const cells = 30 * 29 // the built-in lcs example's grid, int cells
	if plain.Grid != 0 || kept.Grid != 4*cells {
		t.Errorf("grid bytes: %d without --maintain, %d with; want 0 and %d", plain.Grid, kept.Grid, 4*cells)
	}
	if kept.Host != plain.Host+kept.Grid {
		t.Errorf("--maintain host %d, want %d + %d", kept.Host, plain.Host, kept.Grid)
	}
	if plain.Threads != 1 || four.Threads != 4 || four.Work <= plain.Work {
		t.Errorf("threads 1: %+v, threads 4: %+v: want more working memory for more threads", plain, four)
	}
	if _, _, code := dpgpu(t, "check", "lcs", "--threads", "-1"); code != 2 {
		t.Errorf("check --threads -1: exit %d, want 2", code)
	}
}

// TestFlagSpellings: a repeatable flag may be given under any of its names
// in one command (urfave refused `-i A=.. --input B=..`), with its value as
// the next word or after `=`; the answer is that of the single spelling.
func TestFlagSpellings(t *testing.T) {
	for _, args := range [][]string{
		{"-i", "wt=1,2", "--input", "val=3,4", "-s", "cap=3"},
		{"--input", "wt=1,2", "-i=val=3,4", "--set=cap=3"},
		{"-i=wt=1,2", "-i", "val=3,4", "--set", "cap=3"},
	} {
		out, errOut, code := dpgpu(t, append([]string{"solve", "-b", "cpu", "-q", "--json", "knapsack"}, args...)...)
		if code != 0 || !strings.Contains(out, `"answer": 7`) {
			t.Errorf("solve knapsack %v: exit %d, %s%s; want answer 7 (both items fit)", args, code, out, errOut)
		}
	}
}

// TestCheckDeviceMemory: `check --device-memory` also says how a
// traceback would keep the grid on a GPU with that much memory free: in
// blocks where the grid is over it and the recurrence allows, the whole
// grid in its memory where it fits; the host's line stays the host's
// (blocks recomputed on the host). A bad size is a usage error.
func TestCheckDeviceMemory(t *testing.T) {
	a, b := strings.Repeat("GATTACA", 43), strings.Repeat("CATTAG", 50) // a grid of 302 x 301 int cells, 364 KB
	args := []string{"check", "lcs", "-i", "A=\"" + a + "\"", "-i", "B=\"" + b + "\"", "--traceback-memory", "100K"}
	out, errOut, code := dpgpu(t, append(args, "--device-memory", "100K")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	gpu := out[strings.Index(out, "on a GPU"):]
	if !strings.Contains(gpu, "on a GPU with 100.0 KiB free:\ntraceback  linear memory") || !strings.Contains(gpu, "blocks of 64 x 64 cells") || !strings.Contains(gpu, "recomputes in GPU memory the blocks") {
		t.Errorf("a GPU of 100K:\n%s", out)
	}
	// The host's: blocks too (the CPU's wavefronts keep checkpoint
	// columns), recomputed on the host.
	if host := out[:strings.Index(out, "on a GPU")]; !strings.Contains(host, "traceback  linear memory") || !strings.Contains(host, "blocks of") || strings.Contains(host, "GPU") {
		t.Errorf("the host's line:\n%s", host)
	}
	out, _, _ = dpgpu(t, append(args, "--device-memory", "8G", "--json")...)
	var v struct {
		GPU *struct {
			Layout string `json:"layout"`
		} `json:"traceback_gpu"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.GPU == nil || v.GPU.Layout != "device" {
		t.Errorf("a GPU of 8G, JSON: %v %+v\n%s", err, v.GPU, out)
	}
	if _, _, code := dpgpu(t, append(args, "--device-memory", "lots")...); code != 2 {
		t.Errorf("--device-memory lots: exit %d, want 2", code)
	}
}
