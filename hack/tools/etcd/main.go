// Command etcd is the etcd server, built from go.etcd.io/etcd/server/v3 for
// envtest. It accepts etcd's own flags.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
