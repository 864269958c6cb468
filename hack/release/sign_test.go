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
	"crypto"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	gmutate "github.com/google/go-containerregistry/pkg/v1/mutate"
	gstatic "github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/sigstore/cosign/v2/pkg/cosign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
)

// verifierOf loads the PEM public key at path as cosign does for --key.
func verifierOf(t *testing.T, path string) signature.Verifier {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := cryptoutils.UnmarshalPEMToPublicKey(raw)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	v, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkOpts are cosign's options of an offline check with a key: no
// transparency log and no certificate, as `cosign verify --key
// --insecure-ignore-tlog` does.
func checkOpts(v signature.Verifier, claims func() cosign.CheckOpts) *cosign.CheckOpts {
	co := claims()
	co.SigVerifier, co.IgnoreTlog, co.IgnoreSCT = v, true, true
	return &co
}

func signatureClaims() cosign.CheckOpts {
	return cosign.CheckOpts{ClaimVerifier: cosign.SimpleClaimVerifier}
}

func attestationClaims() cosign.CheckOpts {
	return cosign.CheckOpts{ClaimVerifier: cosign.IntotoSubjectClaimVerifier}
}

// unpack unpacks an image layout tar file into a new directory, what a
// user does before `cosign verify --local-image`.
func unpack(t *testing.T, tarFile string) string {
	t.Helper()
	dir := t.TempDir()
	if err := untarDir(tarFile, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// verifyImage checks, with cosign's own verification, the signature and
// the attestation of the image in an unpacked layout against v, and
// returns the first error.
func verifyImage(ctx context.Context, dir string, v signature.Verifier) error {
	if _, _, err := cosign.VerifyLocalImageSignatures(ctx, dir, checkOpts(v, signatureClaims)); err != nil {
		return err
	}
	_, _, err := cosign.VerifyLocalImageAttestations(ctx, dir, checkOpts(v, attestationClaims))
	return err
}

// TestImageSignatures verifies each image of the release offline with
// dist/cosign.pub, as `cosign verify --key cosign.pub --local-image` and
// `cosign verify-attestation --key cosign.pub --type slsaprovenance1
// --local-image` do, and reads the attestation: an in-toto statement
// whose subject is the image index, with SLSA v1 provenance.
func TestImageSignatures(t *testing.T) {
	requireRelease(t)
	ctx := context.Background()
	v := verifierOf(t, built.PublicKey)
	for _, img := range built.Images {
		dir := unpack(t, img.Layout)
		repo, _, _ := splitRef(img.Ref)

		sigs, _, err := cosign.VerifyLocalImageSignatures(ctx, dir, checkOpts(v, signatureClaims))
		if err != nil {
			t.Fatalf("%s: cosign verify: %v", img.Ref, err)
		}
		if len(sigs) != 1 {
			t.Fatalf("%s: %d signatures verified, want 1", img.Ref, len(sigs))
		}
		payload, err := sigs[0].Payload()
		if err != nil {
			t.Fatal(err)
		}
		var simple struct {
			Critical struct {
				Identity struct {
					DockerReference string `json:"docker-reference"`
				} `json:"identity"`
				Image struct {
					DockerManifestDigest string `json:"docker-manifest-digest"`
				} `json:"image"`
			} `json:"critical"`
		}
		if err := json.Unmarshal(payload, &simple); err != nil {
			t.Fatal(err)
		}
		if c := simple.Critical; c.Identity.DockerReference != repo || c.Image.DockerManifestDigest != img.Digest.String() {
			t.Errorf("%s: the signature names %s@%s, want %s@%s", img.Ref, c.Identity.DockerReference, c.Image.DockerManifestDigest, repo, img.Digest)
		}

		atts, _, err := cosign.VerifyLocalImageAttestations(ctx, dir, checkOpts(v, attestationClaims))
		if err != nil {
			t.Fatalf("%s: cosign verify-attestation: %v", img.Ref, err)
		}
		if len(atts) != 1 {
			t.Fatalf("%s: %d attestations verified, want 1", img.Ref, len(atts))
		}
		env, err := atts[0].Payload()
		if err != nil {
			t.Fatal(err)
		}
		var envelope struct{ PayloadType, Payload string }
		if err := json.Unmarshal(env, &envelope); err != nil {
			t.Fatal(err)
		}
		rawStatement, err := base64.StdEncoding.DecodeString(envelope.Payload)
		if err != nil {
			t.Fatal(err)
		}
		var statement struct {
			PredicateType string `json:"predicateType"`
			Subject       []struct {
				Name   string            `json:"name"`
				Digest map[string]string `json:"digest"`
			} `json:"subject"`
			Predicate struct {
				BuildDefinition struct {
					BuildType            string `json:"buildType"`
					ResolvedDependencies []struct {
						Digest map[string]string `json:"digest"`
					} `json:"resolvedDependencies"`
				} `json:"buildDefinition"`
				RunDetails struct {
					Byproducts []struct {
						Name string `json:"name"`
					} `json:"byproducts"`
				} `json:"runDetails"`
			} `json:"predicate"`
		}
		if err := json.Unmarshal(rawStatement, &statement); err != nil {
			t.Fatal(err)
		}
		if envelope.PayloadType != "application/vnd.in-toto+json" || statement.PredicateType != "https://slsa.dev/provenance/v1" {
			t.Errorf("%s: attestation of %s with predicate %s, want an in-toto statement of SLSA v1 provenance", img.Ref, envelope.PayloadType, statement.PredicateType)
		}
		if len(statement.Subject) != 1 || statement.Subject[0].Name != repo || statement.Subject[0].Digest["sha256"] != img.Digest.Hex {
			t.Errorf("%s: the attestation's subject is %+v, want %s with sha256 %s", img.Ref, statement.Subject, repo, img.Digest.Hex)
		}
		p := statement.Predicate
		if p.BuildDefinition.BuildType != BuildType || len(p.BuildDefinition.ResolvedDependencies) != 1 ||
			p.BuildDefinition.ResolvedDependencies[0].Digest["gitCommit"] != testRevision ||
			len(p.RunDetails.Byproducts) != len(opts.Platforms) {
			t.Errorf("%s: provenance %s", img.Ref, rawStatement)
		}
	}
}

// TestSumsSignature verifies SHA256SUMS.sig over SHA256SUMS with
// cosign.pub, as `cosign verify-blob --key cosign.pub --signature
// SHA256SUMS.sig SHA256SUMS` does, and checks that it fails on a
// SHA256SUMS with one byte changed and with another key.
func TestSumsSignature(t *testing.T) {
	requireRelease(t)
	sums, err := os.ReadFile(filepath.Join(opts.Out, SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	b64, err := os.ReadFile(filepath.Join(opts.Out, SumsSignatureFile))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString(string(b64))
	if err != nil {
		t.Fatalf("%s is not base64: %v", SumsSignatureFile, err)
	}
	v := verifierOf(t, built.PublicKey)
	if err := v.VerifySignature(bytes.NewReader(sig), bytes.NewReader(sums)); err != nil {
		t.Fatalf("%s does not verify: %v", SumsSignatureFile, err)
	}
	for _, i := range []int{0, len(sums) / 2, len(sums) - 2} {
		tampered := bytes.Clone(sums)
		tampered[i] ^= 0x01
		if err := v.VerifySignature(bytes.NewReader(sig), bytes.NewReader(tampered)); err == nil {
			t.Errorf("the signature verifies SHA256SUMS with byte %d flipped", i)
		}
	}
	other, err := ThrowawaySigner()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.sv.VerifySignature(bytes.NewReader(sig), bytes.NewReader(sums)); err == nil {
		t.Error("the signature verifies with another key")
	}
}

// TestImageTampered checks that cosign's verification of an image fails
// when the layout's image is not the one signed (one platform's image
// with a layer added, its signatures and attestations moved over), and
// when the key is another.
func TestImageTampered(t *testing.T) {
	requireRelease(t)
	ctx := context.Background()
	v := verifierOf(t, built.PublicKey)
	img := built.Images[0]
	dir := unpack(t, img.Layout)
	if err := verifyImage(ctx, dir, v); err != nil {
		t.Fatalf("the untouched layout does not verify: %v", err)
	}

	other, err := ThrowawaySigner()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cosign.VerifyLocalImageSignatures(ctx, dir, checkOpts(other.sv, signatureClaims)); err == nil {
		t.Error("the signature verifies with another key")
	}
	if _, _, err := cosign.VerifyLocalImageAttestations(ctx, dir, checkOpts(other.sv, attestationClaims)); err == nil {
		t.Error("the attestation verifies with another key")
	}

	idx, desc, err := layoutIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	sigs, atts, err := layoutSignatures(dir)
	if err != nil || sigs == nil || atts == nil {
		t.Fatalf("the layout's signatures %v and attestations %v: %v", sigs, atts, err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	first := im.Manifests[0]
	platformImg, err := idx.Image(first.Digest)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := gmutate.AppendLayers(platformImg, gstatic.NewLayer([]byte("not what was built"), types.OCILayer))
	if err != nil {
		t.Fatal(err)
	}
	tamperedIdx := gmutate.AppendManifests(gmutate.RemoveManifests(idx, match.Digests(first.Digest)),
		gmutate.IndexAddendum{Add: extra, Descriptor: v1.Descriptor{Platform: first.Platform}})

	tampered := t.TempDir()
	p, err := layout.Write(tampered, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	ann := map[string]string{}
	for k, val := range desc.Annotations {
		ann[k] = val
	}
	if err := p.AppendIndex(tamperedIdx, layout.WithAnnotations(ann)); err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(sigs, layout.WithAnnotations(map[string]string{KindAnnotation: KindSignatures})); err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(atts, layout.WithAnnotations(map[string]string{KindAnnotation: KindAttestations})); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cosign.VerifyLocalImageSignatures(ctx, tampered, checkOpts(v, signatureClaims)); err == nil {
		t.Error("the signature verifies an image with a layer added")
	}
	if _, _, err := cosign.VerifyLocalImageAttestations(ctx, tampered, checkOpts(v, attestationClaims)); err == nil {
		t.Error("the attestation verifies an image with a layer added")
	}
}

// TestThrowawayKey checks that the release built without a signing key
// said so on stderr.
func TestThrowawayKey(t *testing.T) {
	requireRelease(t)
	if !strings.Contains(warned.String(), ThrowawayWarning) {
		t.Errorf("a release without a signing key said %q, want the throwaway warning", warned.String())
	}
}

// TestSigningKey writes a release signed with an encrypted cosign key on
// disk, as make release SIGNING_KEY=… COSIGN_PASSWORD=… does: cosign.pub is
// the key's public half, everything verifies with it, nothing is said
// about a throwaway key, and a wrong password is an error.
func TestSigningKey(t *testing.T) {
	requireRelease(t)
	password := []byte("correct horse battery staple")
	keys, err := cosign.GenerateKeyPair(func(bool) ([]byte, error) { return password, nil })
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(keys.PrivateBytes, []byte("ENCRYPTED SIGSTORE PRIVATE KEY")) {
		t.Fatalf("cosign wrote a key that is not an encrypted cosign key:\n%s", keys.PrivateBytes)
	}
	keyFile := filepath.Join(t.TempDir(), "cosign.key")
	if err := os.WriteFile(keyFile, keys.PrivateBytes, 0o600); err != nil {
		t.Fatal(err)
	}

	var warn bytes.Buffer
	o := opts
	o.Out = filepath.Join(t.TempDir(), "dist")
	o.Platforms = o.Platforms[:1]
	o.SigningKey, o.SigningPassword, o.Warn = keyFile, password, &warn
	res, err := releaseFrom(context.Background(), o, bins)
	if err != nil {
		t.Fatal(err)
	}
	if warn.Len() != 0 {
		t.Errorf("a release with a signing key said %q", warn.String())
	}
	pub, err := os.ReadFile(res.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pub, keys.PublicBytes) {
		t.Errorf("cosign.pub is\n%s\nwant the key's\n%s", pub, keys.PublicBytes)
	}
	v := verifierOf(t, res.PublicKey)
	for _, img := range res.Images {
		if err := verifyImage(context.Background(), unpack(t, img.Layout), v); err != nil {
			t.Errorf("%s: %v", img.Ref, err)
		}
	}

	o.Out = filepath.Join(t.TempDir(), "dist")
	o.SigningPassword = []byte("wrong")
	if _, err := releaseFrom(context.Background(), o, bins); err == nil {
		t.Error("a release with the wrong password succeeded")
	}
}

// TestReleaseChecksTheKeyFirst checks that a release with a signing key it
// cannot read or decrypt fails before it builds anything: its go command
// here would fail the build with another error.
func TestReleaseChecksTheKeyFirst(t *testing.T) {
	dir := t.TempDir()
	keys, err := cosign.GenerateKeyPair(func(bool) ([]byte, error) { return []byte("right"), nil })
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "cosign.key")
	if err := os.WriteFile(keyFile, keys.PrivateBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key      string
		password string
	}{{keyFile, "wrong"}, {filepath.Join(dir, "missing.key"), "right"}} {
		_, err := Release(context.Background(), Options{
			Out: filepath.Join(dir, "dist"), Version: testVersion, Go: "false",
			ManagerImage: "r/m:t", FakeAPIImage: "r/f:t",
			SigningKey: tc.key, SigningPassword: []byte(tc.password),
		})
		if err == nil || !strings.Contains(err.Error(), "signing key") {
			t.Errorf("Release with key %s and password %q: %v, want an error about the signing key", tc.key, tc.password, err)
		}
	}
}
