/*
Copyright 2026 The listkeeper Authors.

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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

const usage = `usage: release image|release [flags]
       release push [-out DIR]

  image    build the manager's and the fake server's images and their SBOMs
  release  build a release of -version: signed images with provenance, SBOMs, chart,
           install.yaml, cosign.pub, SHA256SUMS and SHA256SUMS.sig
  push     push every image layout in -out to the reference it names
`

// run parses a subcommand and its flags and runs it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "image" && args[0] != "release" && args[0] != "push") {
		fmt.Fprint(stderr, usage)
		return errors.New("want a subcommand: image, release or push")
	}
	if args[0] == "push" {
		return runPush(ctx, args[1:], stdout, stderr)
	}
	o, err := parseFlags(args[0], args[1:], stderr)
	if err != nil {
		return err
	}
	build := Images
	if args[0] == "release" {
		build = Release
	}
	res, err := build(ctx, o)
	if err != nil {
		return err
	}
	printResult(stdout, res)
	return nil
}

// runPush pushes the images of the layouts in -out.
func runPush(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("release push", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "dist", "directory of the image layouts (*.oci.tar)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	pushed, err := Push(ctx, *out, authn.DefaultKeychain)
	for _, img := range pushed {
		fmt.Fprintf(stdout, "pushed %s@%s\n", img.Ref, img.Digest)
		for _, tag := range img.Signatures {
			fmt.Fprintf(stdout, "pushed %s\n", tag)
		}
	}
	return err
}

// parseFlags reads the options of a subcommand.
func parseFlags(cmd string, args []string, stderr io.Writer) (Options, error) {
	var (
		o         Options
		epoch     int64
		platforms string
	)
	fs := flag.NewFlagSet("release "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Root, "root", ".", "repository root")
	fs.StringVar(&o.Out, "out", "dist", "output directory")
	fs.StringVar(&o.Version, "version", "", "version stamped into the binaries; for release, also the images' tag and the chart's appVersion (vX.Y.Z) (required)")
	fs.StringVar(&o.Revision, "revision", "unknown", "source revision stamped into the binaries and the images' labels")
	fs.StringVar(&o.LDFlags, "ldflags", "", "linker flags (default: -s and the -X flags that stamp -version and -revision)")
	fs.Int64Var(&epoch, "source-date-epoch", envEpoch(), "Unix time of every timestamp written (default: $SOURCE_DATE_EPOCH, else 0)")
	fs.StringVar(&o.ManagerImage, "manager-image", "", "the manager's image, repository:tag (required)")
	fs.StringVar(&o.FakeAPIImage, "fakeapi-image", "", "the fake list server's image, repository:tag (required)")
	fs.StringVar(&platforms, "platforms", "linux/amd64,linux/arm64", "platforms to build, os/arch,...")
	fs.StringVar(&o.Go, "go", "go", "go command")
	fs.StringVar(&o.Kubectl, "kubectl", "kubectl", "kubectl command, for install.yaml")
	if cmd == "release" {
		fs.StringVar(&o.SigningKey, "signing-key", os.Getenv("SIGNING_KEY"), "cosign private key (cosign generate-key-pair) that signs the release, its password in $COSIGN_PASSWORD (default: $SIGNING_KEY; none: a throwaway key)")
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o.Created = time.Unix(epoch, 0)
	if o.SigningKey != "" {
		o.SigningPassword = []byte(os.Getenv("COSIGN_PASSWORD"))
	}
	o.Warn = stderr
	var err error
	if o.Platforms, err = parsePlatforms(platforms); err != nil {
		return o, err
	}
	return o, nil
}

// envEpoch is $SOURCE_DATE_EPOCH, or 0.
func envEpoch() int64 {
	n, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// parsePlatforms parses "os/arch,os/arch".
func parsePlatforms(s string) ([]v1.Platform, error) {
	var out []v1.Platform
	for _, p := range strings.Split(s, ",") {
		osName, arch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok || osName == "" || arch == "" || strings.Contains(arch, "/") {
			return nil, fmt.Errorf("platform %q: want os/arch", p)
		}
		out = append(out, v1.Platform{OS: osName, Architecture: arch})
	}
	return out, nil
}
