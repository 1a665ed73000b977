# Test hosts: network namespaces with their own address on a bridge that
# these functions create in the root namespace, so that what crosses a
# network is tested between hosts, not only over 127.0.0.1. Sourced by the
# scripts that start daemons on such hosts (test/slurm, test/cluster) and
# by tests; run as root. Nothing here reaches outside the machine: the
# addresses are those of the bridge's own subnet, and the hosts have no
# route but to it.
#
#   hosts_bridge_up BRIDGE PREFIX   bridge BRIDGE with PREFIX.1/24 (PREFIX: "10.231.7")
#   host_up BRIDGE PREFIX NAME N    host NAME at PREFIX.N on BRIDGE (N: 2..254)
#   host_exec NAME CMD...           CMD in NAME's network and its own host name NAME
#   host_exec_words NAME            HOST_EXEC=(the words of host_exec NAME)
#   host_apart_words NAME DIR:...   HOST_EXEC=(the same on a host apart: its own
#                                   processes, /proc, /dev/shm and /tmp, of this
#                                   machine's /tmp only the DIRs, as NFS shares)
#   host_shared_words NAME          HOST_EXEC=(the same in this machine's mounts)
#   host_link NAME up|down          NAME's link to the bridge up or down (a host cut off)
#   host_block NAME OTHER on|off    NAME's TCP connections to host OTHER refused (a rule
#                                   in NAME's own iptables), or let through again
#   host_down NAME                  kills what runs in NAME, removes it
#   hosts_bridge_down BRIDGE        removes the bridge (after its hosts)
# shellcheck shell=bash

# A host's end of its link is eth0 in its namespace; the bridge's end is
# named after the host ("NAME-br"; its peer is "NAME-eth" until it moves:
# at most 15 characters, so NAME at most 11).

hosts_bridge_up() {  # BRIDGE PREFIX
  local bridge=$1 prefix=$2
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
    ip addr add "$prefix.1/24" dev "$bridge"
  fi
  ip link set "$bridge" up
  # Bridged frames pass the root namespace's iptables (br_netfilter), whose
  # FORWARD policy the Docker engine sets to DROP: hosts on the bridge may
  # talk to each other.
  if command -v iptables >/dev/null && ! iptables -C FORWARD -i "$bridge" -o "$bridge" -j ACCEPT 2>/dev/null; then
    iptables -I FORWARD -i "$bridge" -o "$bridge" -j ACCEPT
  fi
}

host_up() {  # BRIDGE PREFIX NAME N
  local bridge=$1 prefix=$2 name=$3 n=$4
  ((${#name} <= 11)) || { echo "test host name '$name' is longer than 11 characters" >&2; return 1; }
  ip netns list | grep -qx "$name\( .*\)\?" || ip netns add "$name"
  if ! ip link show "$name-br" >/dev/null 2>&1; then
    ip link add "$name-br" type veth peer name "$name-eth"
    ip link set "$name-eth" netns "$name"
    ip -n "$name" link set "$name-eth" name eth0
    ip -n "$name" addr add "$prefix.$n/24" dev eth0
    ip link set "$name-br" master "$bridge"
  fi
  ip link set "$name-br" up
  ip -n "$name" link set lo up
  ip -n "$name" link set eth0 up
  # The root namespace (the bridge's address) is the way to other subnets
  # the scripts route through it, such as other hosts' pod networks.
  ip -n "$name" route replace default via "$prefix.1" dev eth0
}

host_exec() {  # NAME CMD...
  local name=$1
  shift
  host_exec_words "$name"
  "${HOST_EXEC[@]}" "$@"
}

# HOST_EXEC: the words host_exec runs a command with, for a caller that
# starts it itself (a daemon under setsid, whose pid must be the command's:
# each word execs the next).
host_exec_words() {  # NAME
  HOST_EXEC=(ip netns exec "$1" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$1")
}

# The words of a process on a host that is apart the way machines are: its
# own PID namespace and /proc (the master's processes and descriptors are
# not there), its own /dev/shm and /tmp; of this machine's files it sees
# what a cluster's nodes share (the program, home directories) and, of
# /tmp, only the directories named (colon-separated; a daemon's config,
# state and sockets). tini is the namespace's first process, as init is a
# machine's: it reaps what is orphaned there (a daemon's detached steps)
# and ends with the command, and then everything the host ran ends; a
# signal to the first word's process (what test/daemons.sh's stop sends)
# reaches the command as SIGTERM.
host_apart_words() {  # NAME SHARED_DIRS
  # shellcheck disable=SC2016 # the script's variables are its own
  local script='name=$0 shared=$1
    shift
    hostname "$name" || exit 1
    mount -t tmpfs -o mode=1777 shm /dev/shm || exit 1
    # Each shared directory, kept aside while /tmp is covered, then put back.
    i=0
    IFS=:
    for d in $shared; do
      i=$((i + 1))
      mkdir "/dev/shm/.shared$i" && mount --bind "$d" "/dev/shm/.shared$i" || exit 1
    done
    mount -t tmpfs -o mode=1777 tmp /tmp || exit 1
    i=0
    for d in $shared; do
      i=$((i + 1))
      mkdir -p "$d" && mount --move "/dev/shm/.shared$i" "$d" && rmdir "/dev/shm/.shared$i" || exit 1
    done
    unset IFS
    exec tini -- "$@"'
  HOST_EXEC=(ip netns exec "$1" unshare --uts --pid --kill-child=SIGTERM --mount-proc
    sh -c "$script" "$1" "$2")
}

# The same words for a daemon whose mounts others must see: `ip netns exec`
# gives its command a mount namespace of its own (with a /sys of the host's
# network), where a kubelet's volume mounts would be hidden from its
# containerd, and containerd's pods' network namespaces (in /var/run/netns)
# from the kubelet and from down; nsenter enters the network namespace only.
host_shared_words() {  # NAME
  HOST_EXEC=(nsenter "--net=/var/run/netns/$1" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$1")
}

host_link() {  # NAME up|down
  ip -n "$1" link set eth0 "$2"
}

host_block() {  # NAME OTHER on|off
  local address rule
  address=$(ip -n "$2" -4 -o addr show dev eth0) || return 1
  address=${address#* inet }
  rule=(OUTPUT -p tcp -d "${address%%/*}" -j REJECT --reject-with tcp-reset)
  if [[ $3 == on ]]; then
    ip netns exec "$1" iptables -C "${rule[@]}" 2>/dev/null || ip netns exec "$1" iptables -I "${rule[@]}"
  else
    while ip netns exec "$1" iptables -D "${rule[@]}" 2>/dev/null; do :; done
  fi
}

host_down() {  # NAME
  local name=$1 pids i
  if ip netns list | grep -qx "$name\( .*\)\?"; then
    for ((i = 0; i < 50; i++)); do
      pids=$(ip netns pids "$name")
      [[ -z $pids ]] && break
      # shellcheck disable=SC2086 # one pid per word
      if ((i < 25)); then kill -TERM $pids 2>/dev/null; else kill -KILL $pids 2>/dev/null; fi
      sleep 0.2
    done
    ip netns del "$name"
  fi
  ip link del "$name-br" 2>/dev/null || true
}

hosts_bridge_down() {  # BRIDGE
  while command -v iptables >/dev/null && iptables -D FORWARD -i "$1" -o "$1" -j ACCEPT 2>/dev/null; do :; done
  ip link del "$1" 2>/dev/null || true
}
