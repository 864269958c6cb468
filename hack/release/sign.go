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
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/cosign/v2/pkg/cosign"
	"github.com/sigstore/cosign/v2/pkg/cosign/attestation"
	"github.com/sigstore/cosign/v2/pkg/oci"
	"github.com/sigstore/cosign/v2/pkg/oci/mutate"
	"github.com/sigstore/cosign/v2/pkg/oci/signed"
	"github.com/sigstore/cosign/v2/pkg/oci/static"
	ctypes "github.com/sigstore/cosign/v2/pkg/types"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/dsse"
	sigpayload "github.com/sigstore/sigstore/pkg/signature/payload"
)

// Names of the files a signed release holds beside its artifacts.
const (
	// PublicKeyFile is the PEM public key that verifies every signature of
	// the release.
	PublicKeyFile = "cosign.pub"
	// SumsSignatureFile is the base64 signature over SHA256SUMS, as
	// `cosign sign-blob` writes it.
	SumsSignatureFile = SumsFile + ".sig"
)

// ProvenanceType is the cosign predicate type of the images' attestations
// (`cosign verify-attestation --type slsaprovenance1`), whose in-toto
// predicate type is https://slsa.dev/provenance/v1.
const ProvenanceType = "slsaprovenance1"

// ThrowawayWarning is what a release signed with a key made for it alone
// says on stderr: nobody holds a published copy of its public key, so its
// signatures prove only that the files were not changed after the
// release was written, by anyone who trusts this dist/cosign.pub.
const ThrowawayWarning = "WARNING: no SIGNING_KEY given: this release is signed with a throwaway key made for this run alone; " +
	"its public key (cosign.pub) is published nowhere else, so nobody can verify the release against a key they already trust"

// Signer signs a release with one cosign key: a cosign signature and an
// SLSA provenance attestation for each image index, and a blob signature
// for SHA256SUMS. It wraps sigstore's SignerVerifier so that no crypto is
// written here.
type Signer struct {
	sv signature.SignerVerifier
	// PublicKey is the PEM ("PUBLIC KEY") of the key's public half,
	// written as cosign.pub.
	PublicKey []byte
	// Throwaway is true for a key made for one run.
	Throwaway bool
}

// LoadSigner reads the cosign private key at path (what `cosign
// generate-key-pair` writes: "ENCRYPTED SIGSTORE PRIVATE KEY"), decrypted
// with password.
func LoadSigner(path string, password []byte) (*Signer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	return newSigner(raw, password, false)
}

// ThrowawaySigner makes a new cosign key pair in memory, for a release
// built without a signing key. It goes through the same encrypted form
// and loader as a key on disk, so that both paths sign alike.
func ThrowawaySigner() (*Signer, error) {
	password := make([]byte, 32)
	if _, err := rand.Read(password); err != nil {
		return nil, err
	}
	pass := []byte(base64.RawStdEncoding.EncodeToString(password))
	keys, err := cosign.GenerateKeyPair(func(bool) ([]byte, error) { return pass, nil })
	if err != nil {
		return nil, fmt.Errorf("generate a throwaway key pair: %w", err)
	}
	return newSigner(keys.PrivateBytes, pass, true)
}

// newSigner loads an encrypted cosign private key.
func newSigner(privatePEM, password []byte, throwaway bool) (*Signer, error) {
	sv, err := cosign.LoadPrivateKey(privatePEM, password, nil)
	if err != nil {
		return nil, fmt.Errorf("load the signing key (is COSIGN_PASSWORD right?): %w", err)
	}
	pub, err := sv.PublicKey()
	if err != nil {
		return nil, err
	}
	pubPEM, err := cryptoutils.MarshalPublicKeyToPEM(pub)
	if err != nil {
		return nil, err
	}
	return &Signer{sv: sv, PublicKey: pubPEM, Throwaway: throwaway}, nil
}

// SignBlob signs data as `cosign sign-blob` does and returns the base64
// signature that `cosign verify-blob --signature` reads.
func (s *Signer) SignBlob(data []byte) ([]byte, error) {
	sig, err := s.sv.SignMessage(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return []byte(base64.StdEncoding.EncodeToString(sig)), nil
}

// SignIndex signs the image index idx, pushed to repository, as `cosign
// sign` and `cosign attest --type slsaprovenance1` would: it returns the
// signatures image (one simple-signing payload naming repository@digest,
// signed) and the attestations image (one DSSE envelope holding an in-toto
// statement with predicate as its SLSA v1 provenance and the index as its
// subject), as cosign stores them beside an image (the .sig and .att
// manifests).
func (s *Signer) SignIndex(repository string, idx v1.ImageIndex, predicate any) (sigs, atts oci.Signatures, err error) {
	digest, err := idx.Digest()
	if err != nil {
		return nil, nil, err
	}
	ref, err := name.NewDigest(repository + "@" + digest.String())
	if err != nil {
		return nil, nil, err
	}

	payload, err := (&sigpayload.Cosign{Image: ref}).MarshalJSON()
	if err != nil {
		return nil, nil, err
	}
	b64sig, err := s.SignBlob(payload)
	if err != nil {
		return nil, nil, fmt.Errorf("sign %s: %w", ref, err)
	}
	sig, err := static.NewSignature(payload, string(b64sig))
	if err != nil {
		return nil, nil, err
	}

	rawPredicate, err := json.Marshal(predicate)
	if err != nil {
		return nil, nil, err
	}
	statement, err := attestation.GenerateStatement(attestation.GenerateOpts{
		Predicate: bytes.NewReader(rawPredicate),
		Type:      ProvenanceType,
		Digest:    digest.Hex,
		Repo:      repository,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("provenance of %s: %w", ref, err)
	}
	rawStatement, err := json.Marshal(statement)
	if err != nil {
		return nil, nil, err
	}
	envelope, err := dsse.WrapSigner(s.sv, ctypes.IntotoPayloadType).SignMessage(bytes.NewReader(rawStatement))
	if err != nil {
		return nil, nil, fmt.Errorf("attest %s: %w", ref, err)
	}
	predicateType, err := statementPredicateType(rawStatement)
	if err != nil {
		return nil, nil, err
	}
	att, err := static.NewAttestation(envelope,
		static.WithLayerMediaType(ctypes.DssePayloadType),
		static.WithAnnotations(map[string]string{"predicateType": predicateType}))
	if err != nil {
		return nil, nil, err
	}

	se, err := mutate.AttachSignatureToImageIndex(signed.ImageIndex(idx), sig)
	if err != nil {
		return nil, nil, err
	}
	if se, err = mutate.AttachAttestationToImageIndex(se, att); err != nil {
		return nil, nil, err
	}
	if sigs, err = se.Signatures(); err != nil {
		return nil, nil, err
	}
	atts, err = se.Attestations()
	return sigs, atts, err
}

// statementPredicateType reads the predicateType of an in-toto statement,
// which cosign also puts on the attestation's layer as an annotation.
func statementPredicateType(statement []byte) (string, error) {
	var s struct {
		PredicateType string `json:"predicateType"`
	}
	if err := json.Unmarshal(statement, &s); err != nil {
		return "", fmt.Errorf("in-toto statement: %w", err)
	}
	if s.PredicateType == "" {
		return "", errors.New("in-toto statement without a predicateType")
	}
	return s.PredicateType, nil
}

// signerFor is the signer of a release of o: o.SigningKey's, or a
// throwaway key's, announced on warn with ThrowawayWarning.
func signerFor(o Options, warn io.Writer) (*Signer, error) {
	if o.SigningKey != "" {
		return LoadSigner(o.SigningKey, o.SigningPassword)
	}
	s, err := ThrowawaySigner()
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(warn, ThrowawayWarning)
	return s, nil
}
