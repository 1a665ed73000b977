# The cluster's nodes (sourced by up and node): each a real kubelet on a
# containerd of its own through CRI; pods get their images from the
# registry at $REGISTRY_FOR_NODES. A node on a test host (hosts.sh) runs in
# its namespace, listens on its address and names its pods' cgroups under a
# cgroup of its own; the node "localhost" runs on this machine's network.

# shellcheck shell=bash disable=SC2154 # $here is set by up
node_kind() { echo kubelet; }

# The pod sandbox ("pause") image cannot be pulled from anywhere: build it.
push_pause_image() {
  if ! curl -sf "http://$REGISTRY/v2/fiber/pause/manifests/3.10" \
      -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' >/dev/null; then
    log "node: building the pause image $PAUSE_IMAGE"
    "$here/image" "$here/images/pause.c" fiber/pause:3.10 >/dev/null
  fi
}

# A daemon of node NAME, started as PID-NAME: in the node's host when it
# has one.
start_on_node() {  # NAME PID-NAME CMD...
  local name=$1 pidname=$2
  shift 2
  if [[ $name == localhost ]]; then
    start "$pidname" "$@"
  else
    host_shared_words "$name"
    start "$pidname" "${HOST_EXEC[@]}" "$@"
  fi
}

start_node() {  # NAME
  local name=$1 N C K cgroup gateway=false routes=[] bind containerd kubelet
  N=$(node_dir "$name") C=$(node_dir "$name")/containerd K=$(node_dir "$name")/kubelet
  cgroup=$(node_cgroup "$name") bind=$(node_listen_address "$name")
  containerd=$(node_pid_name containerd "$name") kubelet=$(node_pid_name kubelet "$name")
  mkdir -p "$C" "$K" "$N/cni/net.d" "$N/cni/ipam"
  if [[ $name != localhost ]]; then
    # Its pods reach other hosts through the bridge's address in its namespace.
    gateway=true routes='[{"dst": "'$HOSTS_PREFIX'.0/24"}, {"dst": "'$POD_NETWORK'"}]'
    make_node_cgroup "$cgroup"
  fi

  # The bridge of the node's pods (in the node's namespace), with no
  # masquerading and no default route: their traffic cannot leave the
  # machine. On a test host they have routes through the bridge's address
  # to the hosts' subnet and every node's pods; on the node "localhost"
  # no gateway at all: pods there reach only each other.
  cat >"$N/cni/net.d/10-fiber.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "fiber",
  "plugins": [{
    "type": "bridge", "bridge": "fiber0", "isGateway": $gateway, "ipMasq": false,
    "ipam": {"type": "host-local", "dataDir": "$N/cni/ipam",
             "ranges": [[{"subnet": "$(node_pod_subnet "$name")"}]],
             "routes": $routes}
  }]
}
JSON

  cat >"$C/config.toml" <<TOML
version = 2
root = "$C/root"
state = "$C/state"
[grpc]
  address = "$C/containerd.sock"
[ttrpc]
  address = "$C/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$C/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  stream_server_address = "127.0.0.1"
  # No CAP_SYS_RESOURCE here: never lower oom_score_adj below our own.
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$N/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry.mirrors."$REGISTRY"]
    endpoint = ["http://$REGISTRY_FOR_NODES"]
TOML
  start_on_node "$name" "$containerd" containerd --config "$C/config.toml"
  watch=$containerd wait_for "containerd of node $name" 60 ctr --address "$C/containerd.sock" version

  cat >"$K/config.yaml" <<YML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $bind
port: $KUBELET_PORT
healthzBindAddress: $bind
healthzPort: $KUBELET_HEALTHZ_PORT
readOnlyPort: 0
tlsCertFile: $DIR/pki/kubelet-serving-$name.crt
tlsPrivateKeyFile: $DIR/pki/kubelet-serving-$name.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $DIR/pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$C/containerd.sock
cgroupDriver: cgroupfs
${cgroup:+cgroupRoot: $cgroup}
failCgroupV1: false
failSwapOn: false
# This is a test machine: never evict or taint because of a full disk.
evictionHard: {memory.available: "50Mi", nodefs.available: "1%", imagefs.available: "1%"}
imageGCHighThresholdPercent: 100
resolvConf: /etc/resolv.conf
# Leave the machine's iptables alone (the kubelet would otherwise add chains
# and a KUBE-FIREWALL rule to INPUT/OUTPUT that outlive it).
makeIPTablesUtilChains: false
volumePluginDir: $K/volume-plugins
podLogsDir: $K/pod-logs
YML
  # Save the machine's kernel tunables once, before any kubelet changed them.
  if [[ ! -f $DIR/sysctl.orig ]]; then
    for k in $KERNEL_TUNABLES; do echo "$k=$(sysctl -n "$k")"; done >"$DIR/sysctl.orig"
  fi
  start_on_node "$name" "$kubelet" kubelet --config="$K/config.yaml" \
    --kubeconfig="$DIR/kubelet-$name.kubeconfig" --root-dir="$K/root" --hostname-override="$name" \
    ${cgroup:+--node-ip="$bind"} --cert-dir="$K/pki"
  watch=$kubelet wait_for "kubelet /healthz of node $name" 120 \
    curl -sf "http://$bind:$KUBELET_HEALTHZ_PORT/healthz"
}

# Node NAME Ready, with its pod subnet as its podCIDR (set once: the
# field cannot change).
node_ready() {  # NAME
  local subnet
  subnet=$(node_pod_subnet "$1")
  [[ -n $(kubectl_admin get node "$1" -o 'jsonpath={.spec.podCIDR}') ]] ||
    kubectl_admin patch node "$1" -p "{\"spec\":{\"podCIDR\":\"$subnet\",\"podCIDRs\":[\"$subnet\"]}}" >/dev/null
  [[ $(kubectl_admin get node "$1" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}') == True ]]
}
