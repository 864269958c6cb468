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

// Command release builds listkeeper's release artifacts with Go alone: no
// container engine, no base image to pull, no helm or kustomize binary
// other than kubectl. It is a Go module of its own, so that the root
// module neither requires nor compiles cosign and sigstore; it imports no
// package of the root module, and builds the programs with `go build` in
// -root. `make image`, `make release` and `make push` run it in
// hack/release with absolute paths:
//
//	go -C hack/release run . image   -root $PWD -version v0.3.0 -manager-image R/listkeeper:T -fakeapi-image R/listkeeper-fakeapi:T -out $PWD/dist
//	go -C hack/release run . release -root $PWD -version v0.3.0 -manager-image R/listkeeper:T -fakeapi-image R/listkeeper-fakeapi:T -out $PWD/dist -signing-key $PWD/cosign.key
//	go -C hack/release run . push -out $PWD/dist
//
// # Images
//
// For each of the manager (cmd/manager) and the fake list server
// (cmd/fakeapi) it cross-compiles a static binary per platform (linux/amd64
// and linux/arm64; CGO_ENABLED=0, -trimpath, -buildvcs=false, the version
// and revision stamped into internal/version by -ldflags) and puts it on an
// empty base: one gzip layer holding the binary at /manager or /fakeapi,
// /etc/passwd and /etc/group naming the user nonroot (65532), its home
// /home/nonroot and a /tmp. There is no shell and no other program. The
// binaries carry their own CA roots (golang.org/x/crypto/x509roots/fallback,
// imported by both commands), used when the system has none.
//
// Each image's config runs the binary as its entrypoint as user
// 65532:65532 from /, and carries the labels org.opencontainers.image.title,
// .description, .version, .revision, .source, .url, .licenses (Apache-2.0)
// and .created; the manifests and the index carry the same as annotations.
//
// Each image is written as one OCI image layout in a tar file,
// <name>-<tag>.oci.tar (e.g. listkeeper-v0.3.0.oci.tar): its index.json
// names one multi-platform image index, annotated with
// org.opencontainers.image.ref.name (the tag) and io.containerd.image.name
// (the full reference), and with cosign's kind of a signed index; that
// index lists one image manifest per platform. A release's layouts also
// hold the index's signature and attestation (see Signing), so tools that
// read OCI archives are told which entry by its tag, e.g.
// `skopeo copy --all oci-archive:dist/listkeeper-v0.3.0.oci.tar:v0.3.0 docker://REF`.
//
// # SBOM
//
// Beside each image, <name>-<tag>.cdx.json is a CycloneDX 1.6 JSON SBOM
// read from the binaries' own build information (debug/buildinfo, what
// `go version -m` prints): the image (with the index digest in its purl),
// the main module, the Go standard library, and every module linked into
// any platform's binary, with its version, purl and go.sum hash (the h1:
// SHA-256, in hex) and, when only some platforms link it, an oci:platform
// property for each of them; plus one file component per platform's binary
// with the binary's SHA-256 and build settings.
//
// # Release
//
// The release subcommand tags both images with -version instead of the
// tags their references name, then also writes the chart of
// charts/listkeeper packaged with the Helm SDK (listkeeper-X.Y.Z.tgz:
// version -version without its "v", appVersion -version, so the image tag
// defaults to the released image; values.yaml's image.repository is the
// manager's repository), install.yaml (`kubectl kustomize config/default`
// with the manager's image pinned to the release's by digest,
// repository:tag@sha256:… of the image index that make push pushes),
// cosign.pub, SHA256SUMS over every file it wrote before, in the format of
// sha256sum, and SHA256SUMS.sig.
//
// # Signing
//
// A release is signed with sigstore's Go libraries (cosign's pkg/cosign,
// pkg/oci; sigstore's pkg/signature), no crypto of its own, by the cosign
// private key -signing-key (make release SIGNING_KEY=…; what `cosign
// generate-key-pair` writes, decrypted with $COSIGN_PASSWORD). Without one
// it makes a throwaway key pair in memory, signs with it and says on
// stderr that nobody can verify the release against a published key.
//
// Each image index gets a cosign signature (a simple-signing payload
// naming repository@digest) and an attestation (a DSSE envelope of an
// in-toto statement whose subject is the index and whose predicate is
// SLSA v1 provenance, https://slsa.dev/provenance/v1: source revision,
// flags, builder, every binary's SHA-256). Both are written into the
// image's layout as `cosign save` writes them (index.json entries of kind
// dev.cosignproject.cosign/imageIndex, /sigs and /atts), so that on the
// unpacked layout `cosign verify --key cosign.pub --insecure-ignore-tlog
// --local-image DIR` and `cosign verify-attestation --type slsaprovenance1`
// accept them. SHA256SUMS.sig is the base64 signature over SHA256SUMS that
// `cosign sign-blob` writes (`cosign verify-blob --key cosign.pub
// --insecure-ignore-tlog --signature SHA256SUMS.sig SHA256SUMS`). Nothing
// is uploaded to a transparency log, hence --insecure-ignore-tlog.
//
// # Push
//
// The push subcommand (make push) pushes the image of every layout in
// -out to the reference its index.json names, the whole index with the
// digests it has, with the credentials of the Docker config
// (authn.DefaultKeychain: what `docker login` writes), and the layout's
// signatures and attestations to the tags where cosign looks for them,
// REPOSITORY:sha256-<hex>.sig and .att (replacing what those tags held).
// The release
// workflow (.github/workflows/release.yml) runs make release, then make
// push.
//
// # Reproducibility
//
// Every timestamp is -source-date-epoch (default: $SOURCE_DATE_EPOCH, else
// 0; the Makefile passes the commit's time), tar entries are sorted with
// fixed owners and modes, gzip headers carry no time or name, and the SBOM's
// serial number is derived from its content. The same commit built with the
// same Go release and flags gives the same bytes, so the same image digests,
// but for the signatures: ECDSA signatures differ each time, so the
// layouts (which hold them), SHA256SUMS and SHA256SUMS.sig do too, while
// the image indexes they sign do not.
package main
