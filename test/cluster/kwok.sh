# kwok (sigs.k8s.io/kwok) on the test cluster (sourced by up and down):
# with FIBER_CLUSTER_KWOK_NODES=N, N simulated nodes whose pods kwok's
# controller marks Running without running anything, for runs of thousands
# of pods on one machine. The nodes carry a label and a taint of their own;
# the profile test-kwok in fiber.yaml selects and tolerates them (through
# its worker-pod template), so only its pods land there, and no pod of
# another profile does. test/cluster/build builds kwok, from its own module
# (kwok/go.mod: its k8s.io libraries differ from the cluster's).
# shellcheck shell=bash disable=SC2154 # $here is set by up

KWOK_NODES=${FIBER_CLUSTER_KWOK_NODES:-0}
# The nodes' label (value "true") and taint key, which test-kwok's pods
# select and tolerate; kwok manages the nodes with the label only.
KWOK_LABEL=fiber.test/kwok
KWOK_TAINT=fiber.test/kwok
# Each node's room: far more than a test asks, so no pod waits for it.
KWOK_NODE_PODS=2500
# Where the nodes say their kubelet is: this machine, on a port where
# nothing listens, so the API server's requests for a pod's log are refused
# at once, and none leaves the machine (nor a DNS query for a node's name).
KWOK_KUBELET_PORT=9

start_kwok() {
  ((KWOK_NODES > 0)) || return 0
  [[ -x $KWOK_BIN ]] || die "no kwok at $KWOK_BIN: test/cluster/build builds it"
  local i nodes=""
  for ((i = 0; i < KWOK_NODES; i++)); do
    nodes+="---
apiVersion: v1
kind: Node
metadata:
  name: kwok-$i
  labels: {$KWOK_LABEL: \"true\", kubernetes.io/hostname: kwok-$i, type: kwok}
  annotations: {node.alpha.kubernetes.io/ttl: \"0\"}
spec:
  taints: [{key: $KWOK_TAINT, value: \"true\", effect: NoSchedule}]
status:
  allocatable: {cpu: \"1000\", memory: 4Ti, pods: \"$KWOK_NODE_PODS\"}
  capacity: {cpu: \"1000\", memory: 4Ti, pods: \"$KWOK_NODE_PODS\"}
  addresses: [{type: InternalIP, address: 127.0.0.1}, {type: Hostname, address: localhost}]
  daemonEndpoints: {kubeletEndpoint: {Port: $KWOK_KUBELET_PORT}}
"
  done
  kubectl_admin apply -f - >/dev/null <<<"$nodes"
  # Pod addresses are made up and never used (test-kwok's pods share their
  # node's network, 127.0.0.1): a range wide enough for every pod.
  start kwok "$KWOK_BIN" --kubeconfig="$ADMIN_KUBECONFIG" \
    --manage-all-nodes=false --manage-nodes-with-label-selector="$KWOK_LABEL=true" \
    --cidr=10.250.0.0/16 --node-ip=127.0.0.1 --node-lease-duration-seconds=40
  kwok_ready() {
    [[ $(kubectl_admin get nodes -l "$KWOK_LABEL=true" \
      -o 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
      grep -c True) -eq $KWOK_NODES ]]
  }
  watch=kwok wait_for "$KWOK_NODES kwok nodes to be Ready" 60 kwok_ready

  # test-kwok: test-cluster's settings, its workers' pods on kwok's nodes.
  mkdir -p "$DIR/kwok-templates"
  cp "$DIR/templates/"*.yaml "$DIR/kwok-templates/"
  cat "$here/../../templates/worker-pod.yaml" - >"$DIR/kwok-templates/worker-pod.yaml" <<YML
  nodeSelector: {$KWOK_LABEL: "true"}
  tolerations: [{key: $KWOK_TAINT, operator: Exists, effect: NoSchedule}]
YML
  cat >>"$FIBER_CONFIG" <<YML
  # Workers' pods on kwok's simulated nodes: nothing runs in them, so no
  # image is pulled and none connects (start_timeout keeps them meanwhile).
  test-kwok:
    backend: kubernetes
    kubeconfig: $FIBER_KUBECONFIG
    namespace: $TEST_NAMESPACE
    image: kwok.invalid/nothing:none
    host_network: true
    listen_host: 127.0.0.1
    templates: $DIR/kwok-templates
    start_timeout: 600
YML
  echo "FIBER_CLUSTER_KWOK_NODES=$KWOK_NODES" >>"$DIR/cluster.env"
  log "kwok runs $KWOK_NODES simulated nodes (profile test-kwok)"
}

# The nodes are objects in etcd, which down removes with the rest.
stop_kwok() { stop kwok; }
