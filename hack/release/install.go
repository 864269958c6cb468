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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"sigs.k8s.io/yaml"
)

// managerImageName is the image name config/manager/manager.yaml gives the
// manager, which config/manager/kustomization.yaml's images entry replaces.
const managerImageName = "controller"

// renderInstall writes to out what `kubectl kustomize config/default`
// renders, with the manager's image set to repository@digest, the image
// index that make push pushes, so that a cluster runs exactly the signed
// image whatever the tag points at later. It renders a copy of config/
// whose config/manager/kustomization.yaml names that image.
func renderInstall(ctx context.Context, o Options, repository, tag string, digest v1.Hash, out string) (err error) {
	tmp, err := os.MkdirTemp("", "listkeeper-config-")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(tmp); err == nil {
			err = rerr
		}
	}()
	config := filepath.Join(tmp, "config")
	if err := os.CopyFS(config, os.DirFS(filepath.Join(o.Root, "config"))); err != nil {
		return fmt.Errorf("copy config: %w", err)
	}
	kustomization := filepath.Join(config, "manager", "kustomization.yaml")
	raw, err := os.ReadFile(kustomization)
	if err != nil {
		return err
	}
	raw, err = setKustomizeImage(raw, managerImageName, repository, tag, digest)
	if err != nil {
		return fmt.Errorf("config/manager/kustomization.yaml: %w", err)
	}
	if err := os.WriteFile(kustomization, raw, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, o.Kubectl, "kustomize", filepath.Join(config, "default"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl kustomize config/default: %w\n%s", err, stderr.String())
	}
	return os.WriteFile(out, stdout.Bytes(), 0o644)
}

// setKustomizeImage sets newName, newTag and digest of the images entry of
// a kustomization whose name is name. Kustomize renders an entry with a
// digest as repository@digest: the tag stays in the kustomization only.
func setKustomizeImage(kustomization []byte, name, repository, tag string, digest v1.Hash) ([]byte, error) {
	var k map[string]any
	if err := yaml.Unmarshal(kustomization, &k); err != nil {
		return nil, err
	}
	images, _ := k["images"].([]any)
	for _, img := range images {
		m, ok := img.(map[string]any)
		if !ok || m["name"] != name {
			continue
		}
		m["newName"], m["newTag"], m["digest"] = repository, tag, digest.String()
		return yaml.Marshal(k)
	}
	return nil, fmt.Errorf("no images entry %q", name)
}
