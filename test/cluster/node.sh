# The cluster's single node (sourced by up). A real kubelet on containerd's
# CRI; pods get their images from the registry on 127.0.0.1:$REGISTRY_PORT.

# shellcheck shell=bash disable=SC2154 # $here is set by up
node_kind() { echo kubelet; }

start_node() {
  local C=$DIR/containerd K=$DIR/kubelet
  mkdir -p "$C" "$K" "$DIR/cni/net.d" "$DIR/cni/ipam"

  # The pod sandbox ("pause") image cannot be pulled from anywhere: build it.
  if ! curl -sf "http://$REGISTRY/v2/fiber/pause/manifests/3.10" \
      -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' >/dev/null; then
    log "node: building the pause image $PAUSE_IMAGE"
    "$here/image" "$here/images/pause.c" fiber/pause:3.10 >/dev/null
  fi

  # Pods that do not use the host network get an isolated bridge: no gateway
  # and no masquerading, so their traffic cannot leave the machine.
  cat >"$DIR/cni/net.d/10-fiber.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "fiber",
  "plugins": [{
    "type": "bridge", "bridge": "fiber0", "isGateway": false, "ipMasq": false,
    "ipam": {"type": "host-local", "dataDir": "$DIR/cni/ipam",
             "ranges": [[{"subnet": "10.244.0.0/24"}]]}
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
    conf_dir = "$DIR/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry.mirrors."$REGISTRY"]
    endpoint = ["http://$REGISTRY"]
TOML
  start containerd containerd --config "$C/config.toml"
  watch=containerd wait_for "containerd" 60 ctr --address "$C/containerd.sock" version

  cat >"$K/config.yaml" <<YML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $KUBELET_PORT
healthzBindAddress: 127.0.0.1
healthzPort: $KUBELET_HEALTHZ_PORT
readOnlyPort: 0
tlsCertFile: $DIR/pki/kubelet-serving.crt
tlsPrivateKeyFile: $DIR/pki/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $DIR/pki/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$C/containerd.sock
cgroupDriver: cgroupfs
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
  if ! pid_of kubelet >/dev/null && [[ ! -f $DIR/sysctl.orig ]]; then
    for k in $KERNEL_TUNABLES; do echo "$k=$(sysctl -n "$k")"; done >"$DIR/sysctl.orig"
  fi
  start kubelet kubelet --config="$K/config.yaml" --kubeconfig="$DIR/kubelet.kubeconfig" \
    --root-dir="$K/root" --hostname-override="$NODE_NAME" \
    --cert-dir="$K/pki"
  watch=kubelet wait_for "kubelet /healthz" 120 curl -sf "http://127.0.0.1:$KUBELET_HEALTHZ_PORT/healthz"
}
