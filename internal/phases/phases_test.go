package phases

import (
	"bytes"
	"regexp"
	"testing"
)

func TestTimer(t *testing.T) {
	t.Setenv("DPGPU_TRACE", "")
	if tm := Start("x"); tm != nil {
		t.Fatal("a timer without DPGPU_TRACE")
	}
	var none *Timer
	none.Mark("a") // no-ops
	none.Print(&bytes.Buffer{})

	t.Setenv("DPGPU_TRACE", "1")
	tm := Start("solve")
	tm.Mark("load")
	tm.Mark("run")
	var b bytes.Buffer
	tm.Print(&b)
	if !regexp.MustCompile(`^dpgpu trace solve: load [0-9.]+ ms, run [0-9.]+ ms\n$`).Match(b.Bytes()) {
		t.Errorf("printed %q", b.String())
	}
}
