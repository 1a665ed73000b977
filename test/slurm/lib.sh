# Shared settings and helpers of test/slurm/up and down (sourced, not run).
# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts

# Everything of the test Slurm lives here: keys, config, state, logs, pids.
DIR=${FIBER_SLURM_DIR:-/tmp/fiber-slurm}
SLURM_CONF=$DIR/slurm.conf
FIBER_CONFIG=$DIR/fiber.yaml

# The controller's and the node daemon's ports, on 127.0.0.1 only; uncommon
# ones, so that they collide with nothing else on the machine.
SLURMCTLD_PORT=${FIBER_SLURMCTLD_PORT:-36817}
SLURMD_PORT=${FIBER_SLURMD_PORT:-36818}
ALL_PORTS="$SLURMCTLD_PORT $SLURMD_PORT"

# The one node, as many CPUs as the slurm.conf claims (more than the
# machine has: config_overrides), so that 32 one-CPU workers and their
# master (master: cluster) fit at once.
NODE_CPUS=${FIBER_SLURM_CPUS:-40}
NODE_MEMORY_MB=${FIBER_SLURM_MEMORY_MB:-16384}

# Test hosts (FIBER_SLURM_HOSTS=N, 0 for none): fiber-s1 .. fiber-sN, each
# a network namespace with its own address (10.231.11.2 ..) and host name on
# the bridge fiber-sbr (test/test_hosts.sh), running a slurmd of its own;
# slurmctld then listens on the bridge's address (10.231.11.1), which the
# hosts and this machine reach, and the master of a run on them too.
HOSTS=${FIBER_SLURM_HOSTS:-2}
[[ $HOSTS =~ ^[0-9]$ ]] || { echo "FIBER_SLURM_HOSTS must be 0 to 9, not '$HOSTS'" >&2; exit 1; }
HOSTS_BRIDGE=fiber-sbr
HOSTS_PREFIX=10.231.11
HOST_NAMES=""
for ((i = 1; i <= HOSTS; i++)); do HOST_NAMES+="${HOST_NAMES:+ }fiber-s$i"; done
host_address() { echo "$HOSTS_PREFIX.$((${1#fiber-s} + 1))"; }  # NAME
CTLD_NAME=localhost CTLD_ADDRESS=127.0.0.1
((HOSTS == 0)) || CTLD_NAME=fiber-ctl CTLD_ADDRESS=$HOSTS_PREFIX.1
# Each host's CPUs and memory: few, so that its partition's jobs spread.
HOST_CPUS=${FIBER_SLURM_HOST_CPUS:-4}
HOST_MEMORY_MB=${FIBER_SLURM_HOST_MEMORY_MB:-2048}

log() { printf '[slurm %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The Slurm commands against this Slurm, whatever /etc/slurm says.
export SLURM_CONF

# start_time, pid_of, start, wait_for, stop.
. "$(dirname "${BASH_SOURCE[0]}")/../daemons.sh"
# hosts_bridge_up, host_up, host_exec_words, host_down, hosts_bridge_down.
. "$(dirname "${BASH_SOURCE[0]}")/../test_hosts.sh"

# listening PORT: something listens on TCP PORT.
listening() { ss -Htln "sport = :$1" | grep -q .; }
