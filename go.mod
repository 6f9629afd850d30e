module github.com/dpgpu/dpgpu

go 1.26.8

require (
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/ebitengine/purego v0.11.3
	github.com/sbinet/npyio v0.6.0
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/image v0.30.0
	golang.org/x/term v0.44.0
	gonum.org/v1/gonum v0.16.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/sys v0.46.0 // indirect
)
