package cuda

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOpenDriverMissing(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "libcuda.so.1")
	if err := os.WriteFile(fake, []byte("not a shared object"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nothing", "libcuda.so")
	_, err := openDriver([]string{fake, missing})
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("openDriver of a fake library = %v, want ErrNoDriver", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "no CUDA driver found ("+fake+"): ") {
		t.Errorf("message %q does not start with the sentinel and the first library", msg)
	}
	if i, j := strings.Index(msg, fake), strings.LastIndex(msg, missing); i < 0 || j < i {
		t.Errorf("message %q does not list both candidates in order", msg)
	}
}

// touch creates empty files (not loadable) at the given paths.
func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNVRTCCandidates(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "cuda-12.8")
	sys := filepath.Join(root, "usr-local-cuda", "lib64")
	touch(t,
		filepath.Join(home, "lib64", "libnvrtc.so.12"),
		filepath.Join(home, "lib64", "libnvrtc.so.13"),
		filepath.Join(sys, "libnvrtc.so"),
		filepath.Join(sys, "libnvrtc.so.11"),
	)
	if err := os.MkdirAll(filepath.Join(sys, "libnvrtc.so.13"), 0o755); err != nil { // a directory, not a library
		t.Fatal(err)
	}
	explicit := filepath.Join(root, "custom", "libnvrtc-custom.so")
	bare := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11"}

	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing set", nil, append([]string{
			filepath.Join(sys, "libnvrtc.so"), filepath.Join(sys, "libnvrtc.so.11"),
		}, bare...)},
		{"CUDA_HOME", map[string]string{"CUDA_HOME": home}, append([]string{
			filepath.Join(home, "lib64", "libnvrtc.so.13"), filepath.Join(home, "lib64", "libnvrtc.so.12"),
			filepath.Join(sys, "libnvrtc.so"), filepath.Join(sys, "libnvrtc.so.11"),
		}, bare...)},
		{"DPGPU_NVRTC first", map[string]string{"CUDA_HOME": home, "DPGPU_NVRTC": explicit}, append([]string{
			explicit,
			filepath.Join(home, "lib64", "libnvrtc.so.13"), filepath.Join(home, "lib64", "libnvrtc.so.12"),
			filepath.Join(sys, "libnvrtc.so"), filepath.Join(sys, "libnvrtc.so.11"),
		}, bare...)},
		{"CUDA_HOME is the default dir", map[string]string{"CUDA_HOME": filepath.Dir(sys)}, append([]string{
			filepath.Join(sys, "libnvrtc.so"), filepath.Join(sys, "libnvrtc.so.11"),
		}, bare...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := nvrtcCandidates(func(k string) string { return tt.env[k] }, sys)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("candidates:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestOpenNVRTCFakes(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "libnvrtc.so.13"), filepath.Join(dir, "libnvrtc.so.12")
	touch(t, a, b)
	_, err := openNVRTC([]string{a, b})
	if !errors.Is(err, ErrNoNVRTC) {
		t.Fatalf("openNVRTC of empty files = %v, want ErrNoNVRTC", err)
	}
	if i, j := strings.Index(err.Error(), a), strings.Index(err.Error(), b); i < 0 || j < i {
		t.Errorf("error %q does not list both candidates in order", err)
	}
}
