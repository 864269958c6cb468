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
	"debug/buildinfo"
	"os"
	"slices"

	"github.com/in-toto/in-toto-golang/in_toto/slsa_provenance/common"
	slsa1 "github.com/in-toto/in-toto-golang/in_toto/slsa_provenance/v1"
)

const (
	// sourceURI is the repository the release is built from, as SLSA
	// names a git source.
	sourceURI = "git+https://github.com/listkeeper/listkeeper"
	// BuildType says how to read the provenance's buildDefinition: the
	// external parameters are hack/release's flags.
	BuildType = "https://github.com/listkeeper/listkeeper/tree/main/hack/release#v1"
	// localBuilderID is the builder when the release is not built by
	// GitHub Actions: whoever ran make release, with hack/release.
	localBuilderID = "https://github.com/listkeeper/listkeeper/hack/release@local"
)

// provenance is the SLSA v1 provenance predicate of one image: the source
// revision and the flags it was built from, the builder (the GitHub
// Actions workflow run when $GITHUB_ACTIONS says so, else "local"), and
// the SHA-256 of every platform's binary in it. It carries no time but
// the commit's (sourceDateEpoch), so that it is the same for the same
// build.
//
// The provenance is signed with the release's own key, so it is what SLSA
// calls Build L1: it says how the release claims it was built, not what an
// isolated builder saw.
func provenance(s imageSpec, o Options) (*slsa1.ProvenancePredicate, error) {
	platforms := make([]string, 0, len(o.Platforms))
	for _, p := range o.Platforms {
		platforms = append(platforms, p.OS+"/"+p.Architecture)
	}
	var byproducts []slsa1.ResourceDescriptor
	goVersion := ""
	keys := make([]string, 0, len(s.binaries))
	for k := range s.binaries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		path := s.binaries[k]
		sum, err := fileSHA256(path)
		if err != nil {
			return nil, err
		}
		info, err := buildinfo.ReadFile(path)
		if err != nil {
			return nil, err
		}
		goVersion = info.GoVersion
		byproducts = append(byproducts, slsa1.ResourceDescriptor{
			Name:   k + "/" + s.program.Name,
			Digest: common.DigestSet{"sha256": sum},
		})
	}
	builderID, invocation := builder()
	return &slsa1.ProvenancePredicate{
		BuildDefinition: slsa1.ProvenanceBuildDefinition{
			BuildType: BuildType,
			ExternalParameters: map[string]any{
				"source":          sourceURI,
				"revision":        o.Revision,
				"version":         o.Version,
				"image":           s.ref(),
				"package":         s.program.Package,
				"platforms":       platforms,
				"ldflags":         o.LDFlags,
				"sourceDateEpoch": o.Created.Unix(),
			},
			InternalParameters: map[string]any{
				"goVersion": goVersion,
				"cgo":       false,
				"trimpath":  true,
			},
			ResolvedDependencies: []slsa1.ResourceDescriptor{{
				URI:    sourceURI + "@" + o.Version,
				Digest: common.DigestSet{"gitCommit": o.Revision},
			}},
		},
		RunDetails: slsa1.ProvenanceRunDetails{
			Builder:       slsa1.Builder{ID: builderID},
			BuildMetadata: slsa1.BuildMetadata{InvocationID: invocation},
			Byproducts:    byproducts,
		},
	}, nil
}

// builder is the builder's ID and the invocation's: the workflow file
// and the run, when GitHub Actions runs the release, else localBuilderID
// and no invocation.
func builder() (id, invocation string) {
	server, workflow := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_WORKFLOW_REF")
	if os.Getenv("GITHUB_ACTIONS") != "true" || server == "" || workflow == "" {
		return localBuilderID, ""
	}
	id = server + "/" + workflow
	if repo, run := os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID"); repo != "" && run != "" {
		invocation = server + "/" + repo + "/actions/runs/" + run + "/attempts/" + os.Getenv("GITHUB_RUN_ATTEMPT")
	}
	return id, invocation
}
