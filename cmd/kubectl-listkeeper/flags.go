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
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/membership"
	"github.com/listkeeper/listkeeper/internal/version"
)

// defaultOperatorNamespace is where the operator's member Leases are
// looked for without --operator-namespace: the namespace of `make deploy`
// (config/default) and of the Helm install in docs/install.md.
const defaultOperatorNamespace = "listkeeper-system"

// outputJSON is the one -o value besides the default, human-readable
// output.
const outputJSON = "json"

// options are the parsed flags; each command reads its own.
type options struct {
	kubeconfig string
	context    string
	namespace  string
	output     string
	owner      ownerQuery
	reconcile  reconcileOptions
}

// command is one subcommand.
type command struct {
	name  string
	args  string // the positional arguments, for the usage
	nargs int    // how many it takes: 0, or 1 object
	// bare is the kind of an object named without one; kinds are the
	// kinds the command takes.
	bare    kind
	kinds   []kind
	summary string
	// offline commands need no cluster.
	offline bool
	// flags registers the command's own flags, and check rejects values
	// of them that cannot work; both may be nil.
	flags func(fs *flag.FlagSet, o *options)
	check func(o *options) error
	run   func(ctx context.Context, e *env, inv *invocation) error
}

// invocation is a parsed command line.
type invocation struct {
	cmd  *command
	opts *options
	args []string // the positional arguments
	fs   *flag.FlagSet
}

// commands are the subcommands, in the order the usage lists them.
var commands = []*command{
	{
		name: "status", args: "LIST", nargs: 1, bare: kindExternalList, kinds: []kind{kindExternalList, kindClusterExternalList},
		summary: "the list's claim, the replica that writes its document, its entries by condition, items, last sync and last error",
		flags: func(fs *flag.FlagSet, o *options) {
			stringFlag(fs, &o.output, "output", "o", "", "output format: json (default: human-readable)")
			fs.StringVar(&o.owner.Namespace, "operator-namespace", defaultOperatorNamespace, "the operator's `namespace`, where its replicas' member Leases live (the manager's --lease-namespace; make demo puts them in default)")
			fs.StringVar(&o.owner.Group, "member-group", "", "the operator's member `group` (the manager's --member-group), when several share the namespace (default: any)")
			fs.IntVar(&o.owner.Buckets, "buckets", membership.DefaultBuckets, "the operator's --buckets")
		},
		check: func(o *options) error {
			if o.output != "" && o.output != outputJSON {
				return fmt.Errorf("-o %q: the output is human-readable, or json", o.output)
			}
			if o.owner.Buckets <= 0 {
				return fmt.Errorf("--buckets %d: must be positive", o.owner.Buckets)
			}
			return nil
		},
		run: func(ctx context.Context, e *env, inv *invocation) error {
			r, err := inv.ref(e.namespace)
			if err != nil {
				return err
			}
			return runStatus(ctx, e, r, statusOptions{owner: inv.opts.owner, output: inv.opts.output})
		},
	},
	{
		name: "reconcile", args: "LIST|ENTRY", nargs: 1, bare: kindExternalList, kinds: []kind{kindExternalList, kindClusterExternalList, kindListEntry},
		summary: "set " + v1alpha1.ReconcileRequestedAtAnnotation + " to now and wait until the operator has handled it, then print Ready",
		flags: func(fs *flag.FlagSet, o *options) {
			fs.DurationVar(&o.reconcile.Timeout, "timeout", defaultReconcileTimeout, "how long to wait for the operator")
		},
		check: func(o *options) error {
			if o.reconcile.Timeout <= 0 {
				return fmt.Errorf("--timeout %s: must be positive", o.reconcile.Timeout)
			}
			return nil
		},
		run: func(ctx context.Context, e *env, inv *invocation) error {
			r, err := inv.ref(e.namespace)
			if err != nil {
				return err
			}
			return runReconcile(ctx, e, r, inv.opts.reconcile)
		},
	},
	{
		name: "why", args: "ENTRY|LIST", nargs: 1, bare: kindListEntry, kinds: []kind{kindExternalList, kindClusterExternalList, kindListEntry},
		summary: "the conditions of an entry and of its list, in words, with the next step",
		run: func(ctx context.Context, e *env, inv *invocation) error {
			r, err := inv.ref(e.namespace)
			if err != nil {
				return err
			}
			return runWhy(ctx, e, r)
		},
	},
	{
		name: "version", offline: true,
		summary: "print the plugin's version",
		run: func(_ context.Context, e *env, _ *invocation) error {
			fmt.Fprintln(e.out, version.String("kubectl-listkeeper"))
			return nil
		},
	},
}

// stringFlag registers a string flag under a long and a short name.
func stringFlag(fs *flag.FlagSet, p *string, long, short, value, usage string) {
	fs.StringVar(p, long, value, usage)
	fs.StringVar(p, short, value, "short for --"+long)
}

// connectionFlags are the kubeconfig flags every command that talks to
// the cluster takes, as kubectl names them.
func connectionFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to the kubeconfig `file` (default: KUBECONFIG, else ~/.kube/config)")
	fs.StringVar(&o.context, "context", "", "the kubeconfig `context` to use (default: its current context)")
	stringFlag(fs, &o.namespace, "namespace", "n", "", "the `namespace` of the list or entry (default: the context's)")
}

// parse reads a command line: the command is the first argument that is
// not a flag, and flags may come before or after the arguments, as kubectl
// takes them. Every flag takes a value (-x v or -x=v), except -h.
func parse(args []string, stderr io.Writer) (*invocation, error) {
	name, rest := splitCommand(args)
	if name == "" {
		usage(stderr)
		if slices.ContainsFunc(args, isHelp) {
			return nil, flag.ErrHelp
		}
		return nil, errors.New("no command: use status, reconcile, why or version")
	}
	var cmd *command
	for _, c := range commands {
		if c.name == name {
			cmd = c
		}
	}
	if cmd == nil {
		usage(stderr)
		return nil, fmt.Errorf("unknown command %q", name)
	}
	inv := &invocation{cmd: cmd, opts: &options{}}
	inv.fs = flag.NewFlagSet("kubectl listkeeper "+name, flag.ContinueOnError)
	inv.fs.SetOutput(stderr)
	inv.fs.Usage = func() { commandUsage(stderr, cmd, inv.fs) }
	if !cmd.offline {
		connectionFlags(inv.fs, inv.opts)
	}
	if cmd.flags != nil {
		cmd.flags(inv.fs, inv.opts)
	}
	var err error
	if inv.args, err = parseInterspersed(inv.fs, rest); err != nil {
		return nil, err
	}
	if err := inv.check(); err != nil {
		return nil, err
	}
	return inv, nil
}

// check rejects what no cluster could make work: the wrong arguments, or
// flag values the command cannot use.
func (inv *invocation) check() error {
	c := inv.cmd
	if len(inv.args) != c.nargs {
		if c.nargs == 0 {
			return inv.usageError("%s takes no arguments", c.name)
		}
		return inv.usageError("%s takes one argument, %s; got %d", c.name, c.args, len(inv.args))
	}
	if c.nargs == 1 {
		r, err := inv.ref("")
		if err != nil {
			return err
		}
		if !slices.Contains(c.kinds, r.Kind) {
			return inv.usageError("%s takes %s, not a %s", c.name, c.args, r.Kind)
		}
	}
	if c.check != nil {
		if err := c.check(inv.opts); err != nil {
			return inv.usageError("%v", err)
		}
	}
	return nil
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

// splitCommand finds the command in args and returns it and the other
// arguments, in order.
func splitCommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", args
		case isHelp(a):
		case strings.HasPrefix(a, "-"):
			if !strings.Contains(a, "=") {
				i++ // its value
			}
		default:
			return a, append(slices.Clone(args[:i]), args[i+1:]...)
		}
	}
	return "", args
}

// parseInterspersed parses flags wherever they are among args, and
// returns the other arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// ref reads the one positional argument as a reference to an object in
// namespace (unless it is cluster-scoped).
func (inv *invocation) ref(namespace string) (ref, error) {
	r, err := parseRef(inv.args[0], inv.cmd.bare, namespace)
	if err != nil {
		return ref{}, inv.usageError("%v", err)
	}
	return r, nil
}

// usageError is an error in the command line, with where to find help.
func (inv *invocation) usageError(format string, args ...any) error {
	return fmt.Errorf("%s (kubectl listkeeper %s -h shows how)", fmt.Sprintf(format, args...), inv.cmd.name)
}

// usage writes the plugin's usage.
func usage(w io.Writer) {
	fmt.Fprintln(w, "kubectl listkeeper: what listkeeper is doing with your lists and entries.")
	fmt.Fprintln(w, "\nUsage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  kubectl listkeeper %-22s %s\n", strings.TrimSpace(c.name+" "+c.args), c.summary)
	}
	fmt.Fprint(w, objectsHelp)
	fmt.Fprintln(w, "\nRun kubectl listkeeper COMMAND -h for a command's flags.")
}

// objectsHelp says how objects are named.
const objectsHelp = `
LIST is NAME or xl/NAME (an ExternalList in the namespace), or cxl/NAME (a
ClusterExternalList); ENTRY is le/NAME (why takes a bare NAME as one).
`

// commandUsage writes a command's usage with its flags, as --long (-s).
func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: kubectl listkeeper %s [flags]\n\n%s.\n", strings.TrimSpace(c.name+" "+c.args), capitalize(c.summary))
	if !c.offline {
		fmt.Fprint(w, objectsHelp)
	}
	fmt.Fprintln(w, "\nFlags:")
	short := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if long, ok := strings.CutPrefix(f.Usage, "short for --"); ok {
			short[long] = f.Name
		}
	})
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			return
		}
		name := "--" + f.Name
		if s, ok := short[f.Name]; ok {
			name = "-" + s + ", " + name
		}
		typ, text := flag.UnquoteUsage(f)
		if f.DefValue != "" && f.DefValue != "0" && !strings.Contains(text, "(default") {
			text += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "  %s %s\n      %s\n", name, typ, text)
	})
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
