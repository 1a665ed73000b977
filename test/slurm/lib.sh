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

log() { printf '[slurm %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The Slurm commands against this Slurm, whatever /etc/slurm says.
export SLURM_CONF

# start_time, pid_of, start, wait_for, stop.
. "$(dirname "${BASH_SOURCE[0]}")/../daemons.sh"

# listening PORT: something listens on TCP PORT.
listening() { ss -Htln "sport = :$1" | grep -q .; }
