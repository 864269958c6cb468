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
	"io"
	"slices"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// defaultLogOptions are the manager's logging defaults: JSON lines (zap's
// production encoder) with ISO-8601 timestamps under "ts", at Info. The
// usual --zap-devel, --zap-encoder, --zap-log-level, --zap-time-encoding
// and --zap-stacktrace-level flags override them.
func defaultLogOptions() zap.Options {
	return zap.Options{Development: false, TimeEncoder: zapcore.ISO8601TimeEncoder}
}

// newLogger builds the manager's logger from o, writing to w.
func newLogger(o *zap.Options, w io.Writer) logr.Logger {
	return zap.New(zap.UseFlagOptions(o), zap.WriteTo(w))
}

// newAuditLogger builds the logger of the audit trail (one record per
// committed list write) from the same options, so it keeps their encoder
// and time format, with two differences: it logs whatever
// --zap-log-level says, and it is never sampled. controller-runtime's
// production logger drops all but 1 in 100 records of one message after
// the first 100 in a second, and an audit trail must keep every record.
// Its sampler is skipped when the level enables debug, so the audit logger
// enables every level; it only ever logs at Info.
func newAuditLogger(o *zap.Options, w io.Writer) logr.Logger {
	a := *o
	a.ZapOpts = slices.Clone(o.ZapOpts)
	a.Level = zapcore.Level(-128)
	return newLogger(&a, w).WithName("audit")
}
