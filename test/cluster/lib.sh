# Shared settings and helpers for the test cluster scripts (sourced, not run).
# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts

# The one pinned Kubernetes release; go.mod must agree.
K8S_VERSION=1.34.4

# The Go toolchain that builds it, fetched from the Go module proxy (where Go
# publishes its toolchains as modules) and checked against this digest of
# its zip, so a fresh machine needs no Go of its own.
GO_TOOLCHAIN=go1.24.13
GO_TOOLCHAIN_SHA256=d2b048367a3d1a748b87f756fa06df12ce3b419e1d5f2a3612acb8950d615f9f

# first_proxy_url LIST: the first entry of a GOPROXY-style list (entries
# separated by "," or "|") that is a URL, so not "direct" or "off".
first_proxy_url() {
  local entry entries
  IFS=',|' read -ra entries <<<"$1"
  for entry in "${entries[@]}"; do
    if [[ $entry =~ ^[a-z][a-z0-9+.-]*:// ]]; then
      echo "${entry%/}"
      return 0
    fi
  done
  return 1
}

# module_proxy: the Go module proxy to fetch the toolchain from: the first URL
# in GOPROXY, else in `go env GOPROXY` of an installed Go (on PATH, else
# INSTALLED_GO). The repository names no proxy of its own.
INSTALLED_GO=/usr/local/go/bin/go
module_proxy() {
  local go_bin
  first_proxy_url "${GOPROXY:-}" && return 0
  for go_bin in "$(command -v go || true)" "$INSTALLED_GO"; do
    [[ -n $go_bin && -x $go_bin ]] || continue
    first_proxy_url "$("$go_bin" env GOPROXY 2>/dev/null || true)" && return 0
  done
  log "ERROR: no Go module proxy: set GOPROXY to its URL, or install a Go whose \`go env GOPROXY\` names one"
  return 1
}

# Build cache and binaries: outside the repo, reused across runs.
CACHE=${FIBER_CLUSTER_CACHE:-$HOME/.cache/fiber-cluster}
BIN=$CACHE/bin/v$K8S_VERSION
# kwok (kwok.sh), from its own module (kwok/go.mod must agree). v0.7.0, not
# the newer v0.8.0: that one needs Go 1.26, this one the pinned toolchain.
KWOK_VERSION=0.7.0
KWOK_BIN=$CACHE/bin/kwok-v$KWOK_VERSION/kwok

# Runtime state of a running cluster: certs, kubeconfigs, data, logs, pids.
DIR=${FIBER_CLUSTER_DIR:-/tmp/fiber-cluster}
ADMIN_KUBECONFIG=$DIR/admin.kubeconfig
RESTRICTED_KUBECONFIG=$DIR/restricted.kubeconfig
FIBER_KUBECONFIG=$DIR/fiber.kubeconfig
FIBER_CONFIG=$DIR/fiber.yaml

# Everything listens on 127.0.0.1 only (and, with test hosts, the API server
# and a registry on the hosts' bridge, the kubelets on their hosts). Ports are uncommon ones so that the
# cluster does not collide with anything else on the machine, and below the
# kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999): a
# port in it can be taken by any outgoing connection of the tests that run
# beside the cluster (seen: 35000 taken between the cluster test's down and
# up, so the registry could not listen again).
ETCD_PORT=${FIBER_ETCD_PORT:-30379}
ETCD_PEER_PORT=${FIBER_ETCD_PEER_PORT:-30380}
API_PORT=${FIBER_API_PORT:-30443}
REGISTRY_PORT=${FIBER_REGISTRY_PORT:-30500}
KCM_PORT=${FIBER_KCM_PORT:-30257}
SCHED_PORT=${FIBER_SCHED_PORT:-30259}
KUBELET_PORT=${FIBER_KUBELET_PORT:-30250}
KUBELET_HEALTHZ_PORT=${FIBER_KUBELET_HEALTHZ_PORT:-30248}
ALL_PORTS="$ETCD_PORT $ETCD_PEER_PORT $API_PORT $REGISTRY_PORT $KCM_PORT $SCHED_PORT $KUBELET_PORT $KUBELET_HEALTHZ_PORT"

# The nodes. FIBER_CLUSTER_NODES=N (1 or more): N nodes, each on a test host
# of its own with pod networking (hosts.sh); up records N in $DIR/node-count for
# the scripts that follow it. Unset or 0: one node on this machine's own
# network, named "localhost": the kubelet refuses a loopback node IP, so the
# node carries no usable InternalIP; the API server reaches the kubelet (for
# logs, exec) through the node's Hostname address instead, and "localhost"
# is the one host name that resolves to 127.0.0.1 everywhere.
NODES=${FIBER_CLUSTER_NODES:-$(cat "$DIR/node-count" 2>/dev/null || echo 0)}
[[ $NODES =~ ^[0-9]+$ ]] && ((NODES <= 50)) || {
  echo "FIBER_CLUSTER_NODES must be a number of nodes from 0 to 50, not '$NODES'" >&2
  exit 2
}
. "$(dirname "${BASH_SOURCE[0]}")/hosts.sh"
NODE_NAMES=$(node_names)
NODE_NAME=${NODE_NAMES%% *}

# Where images for the cluster live, as pods name them; the nodes fetch
# them from REGISTRY_FOR_NODES (another registry process on the same
# storage when the nodes are test hosts, which cannot reach 127.0.0.1).
REGISTRY=127.0.0.1:$REGISTRY_PORT
REGISTRY_FOR_NODES=$API_HOST:$REGISTRY_PORT
PAUSE_IMAGE=$REGISTRY/fiber/pause:3.10

# Kernel tunables the kubelet sets when it starts (it has no option to leave
# them alone): up saves their values first, down puts them back.
KERNEL_TUNABLES="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"

# Namespace and service account that the restricted kubeconfig acts as.
TEST_NAMESPACE=fiber-test
RESTRICTED_SA=fiber-restricted
FIBER_SA=fiber-user

log() { printf '[cluster %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

kubectl_admin() { "$BIN/kubectl" --kubeconfig "$ADMIN_KUBECONFIG" "$@"; }

# start_time, pid_of, start, wait_for, stop.
. "$(dirname "${BASH_SOURCE[0]}")/../daemons.sh"
