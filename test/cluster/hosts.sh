# The cluster's nodes as test hosts (sourced by lib.sh): with
# FIBER_CLUSTER_NODES=N, node I is fiber-nodeI, a network namespace with its
# own host name at 10.231.12.(I+1) on the bridge fiber-kube (10.231.12.1,
# the address of this machine that nodes and pods reach: the API server and
# the registry for the nodes listen there), its pods in 10.244.I.0/24 on a
# CNI bridge in its namespace. Routes to each node's pods via the node's
# address, in the root namespace and on the other hosts, make every pod
# reachable from the master here and from every other pod. With no
# FIBER_CLUSTER_NODES, the one node "localhost" runs on this machine's own
# network, its pods in 10.244.0.0/24 reaching no one but each other.
# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts
. "$(dirname "${BASH_SOURCE[0]}")/../test_hosts.sh"

HOSTS_BRIDGE=fiber-kube
HOSTS_PREFIX=10.231.12
POD_NETWORK=10.244.0.0/16  # every node's pod subnet is in it
if ((NODES > 0)); then API_HOST=$HOSTS_PREFIX.1; else API_HOST=127.0.0.1; fi

node_names() {
  if ((NODES == 0)); then echo localhost; return; fi
  local i names=()
  for ((i = 1; i <= NODES; i++)); do names+=("fiber-node$i"); done
  echo "${names[*]}"
}
node_index() { [[ $1 == localhost ]] && echo 0 || echo "${1#fiber-node}"; }
node_address() { echo "$HOSTS_PREFIX.$(($(node_index "$1") + 1))"; }
# Where the node's kubelet listens.
node_listen_address() { [[ $1 == localhost ]] && echo 127.0.0.1 || node_address "$1"; }
node_pod_subnet() { echo "10.244.$(node_index "$1").0/24"; }
# What the node's daemons are started as ("kubelet", "kubelet-fiber-node1").
node_pid_name() { [[ $2 == localhost ]] && echo "$1" || echo "$1-$2"; }
# Where a node keeps its containerd, kubelet and CNI state.
node_dir() { [[ $1 == localhost ]] && echo "$DIR" || echo "$DIR/nodes/$1"; }
# The node's own cgroup, under which its kubelet puts its pods (so that
# kubelets on one machine leave each other's pods alone); none for localhost.
node_cgroup() { [[ $1 == localhost ]] || echo "/$1"; }

# The hosts, their forwarding and the routes to every node's pods.
hosts_up() {
  local name other
  ((NODES > 0)) || return 0
  hosts_bridge_up "$HOSTS_BRIDGE" "$HOSTS_PREFIX"
  for name in $NODE_NAMES; do
    host_up "$HOSTS_BRIDGE" "$HOSTS_PREFIX" "$name" "$(($(node_index "$name") + 1))"
    ip netns exec "$name" sysctl -qw net.ipv4.ip_forward=1
  done
  for name in $NODE_NAMES; do
    ip route replace "$(node_pod_subnet "$name")" via "$(node_address "$name")" dev "$HOSTS_BRIDGE"
    for other in $NODE_NAMES; do
      [[ $other == "$name" ]] ||
        ip -n "$other" route replace "$(node_pod_subnet "$name")" via "$(node_address "$name")" dev eth0
    done
  done
}

# Removes the hosts (killing what still runs in their namespaces), the
# routes and the bridge; quiet about what is already gone.
hosts_down() {
  local i name
  for name in $(ip netns list | grep -o '^fiber-node[0-9]*'); do host_down "$name"; done
  for ((i = 1; i <= 50; i++)); do ip route del "10.244.$i.0/24" 2>/dev/null || true; done
  hosts_bridge_down "$HOSTS_BRIDGE"
}

# The cgroup node_cgroup names, made in every hierarchy (cgroup v1), with
# the cpus and memory nodes of the root so that tasks may join it below.
make_node_cgroup() {
  local cg=$1 d
  for d in /sys/fs/cgroup/*/; do
    [[ -L ${d%/} ]] && continue
    mkdir -p "$d${cg#/}"
    if [[ -f ${d}cpuset.cpus ]]; then
      cat "${d}cpuset.cpus" >"$d${cg#/}/cpuset.cpus"
      cat "${d}cpuset.mems" >"$d${cg#/}/cpuset.mems"
    fi
  done
}

# Removes a node's cgroups (empty by then), deepest first.
remove_node_cgroup() {
  local d
  for d in /sys/fs/cgroup/*/"${1#/}"; do
    [[ -d $d ]] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}
