# Shared settings and helpers of test/slurm/up and down (sourced, not run).
# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts

# Everything of the test Slurm lives here: keys, config, state, logs, pids.
DIR=${FIBER_SLURM_DIR:-/tmp/fiber-slurm}
SLURM_CONF=$DIR/slurm.conf
FIBER_CONFIG=$DIR/fiber.yaml

# The controller's and the node daemon's ports, on 127.0.0.1 only; uncommon
# ones, so that they collide with nothing else on the machine, and below the
# kernel's ephemeral range (32768-60999), where any outgoing connection of
# the tests beside Slurm could take one (test/cluster/lib.sh).
SLURMCTLD_PORT=${FIBER_SLURMCTLD_PORT:-26817}
SLURMD_PORT=${FIBER_SLURMD_PORT:-26818}
# Accounting (FIBER_SLURM_ACCOUNTING=1): slurmdbd and its MariaDB, on
# 127.0.0.1 only too.
ACCOUNTING=${FIBER_SLURM_ACCOUNTING:-0}
[[ $ACCOUNTING == [01] ]] || { echo "FIBER_SLURM_ACCOUNTING must be 0 or 1, not '$ACCOUNTING'" >&2; exit 1; }
SLURMDBD_PORT=${FIBER_SLURMDBD_PORT:-26819}
MARIADB_PORT=${FIBER_SLURM_MARIADB_PORT:-26820}
ALL_PORTS="$SLURMCTLD_PORT $SLURMD_PORT $SLURMDBD_PORT $MARIADB_PORT"

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
# hosts_bridge_up, host_up, host_apart_words, host_down, hosts_bridge_down.
. "$(dirname "${BASH_SOURCE[0]}")/../test_hosts.sh"

# listening PORT: something listens on TCP PORT.
listening() { ss -Htln "sport = :$1" | grep -q .; }

# MariaDB (its data in $DIR/mysql, on 127.0.0.1) and slurmdbd (its config
# $DIR/slurmdbd.conf, beside slurm.conf, where it looks; on slurmctld's
# address, which slurmdbd calls back at the address slurmctld came from),
# then the cluster (and so the account root with the user root) and the
# user nobody, whom tests submit as: with AccountingStorageEnforce a user
# without an association cannot submit. Arguments: the command that runs
# slurmdbd as the controller's host.
start_accounting() {
  local db=$DIR/mysql socket=$DIR/run/mysqld.sock pass_file=$DIR/mysql.pass pass
  if [[ ! -d $db/mysql ]]; then
    mariadb-install-db --no-defaults --datadir="$db" --user=root --auth-root-authentication-method=socket \
      --skip-test-db >>"$DIR/logs/mariadb-install.log" 2>&1 || die "mariadb-install-db failed (see $DIR/logs/mariadb-install.log)"
  fi
  [[ -s $pass_file ]] || (umask 077 && head -c 18 /dev/urandom | base64 >"$pass_file")
  pass=$(cat "$pass_file")
  start mariadb mariadbd --no-defaults --datadir="$db" --socket="$socket" --port="$MARIADB_PORT" \
    --bind-address=127.0.0.1 --skip-name-resolve --user=root --pid-file="$DIR/run/mysqld.daemon.pid" \
    --innodb-lock-wait-timeout=900
  watch=mariadb wait_for "MariaDB to answer" 60 mariadb --no-defaults --socket="$socket" -u root -e 'SELECT 1'
  mariadb --no-defaults --socket="$socket" -u root -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" || die "cannot make MariaDB's user for slurmdbd"
  (umask 077 && cat >"$DIR/slurmdbd.conf" <<CONF
# slurmdbd of test/slurm/up, its database in MariaDB on 127.0.0.1.
DbdHost=localhost
DbdAddr=$CTLD_ADDRESS
DbdPort=$SLURMDBD_PORT
CommunicationParameters=NoInAddrAny
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/munge/munge.socket.2
PidFile=$DIR/run/slurmdbd.daemon.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$MARIADB_PORT
StorageUser=slurm
StoragePass=$pass
StorageLoc=slurm_acct_db
CONF
  )
  start slurmdbd "$@" slurmdbd -D
  watch=slurmdbd wait_for "slurmdbd to answer" 60 sacctmgr -n list cluster
  sacctmgr -n -P list cluster format=cluster | grep -qx fiber-test || sacctmgr -i add cluster fiber-test >/dev/null
  sacctmgr -n -P list assoc user=nobody format=user | grep -qx nobody ||
    sacctmgr -i add user nobody account=root cluster=fiber-test >/dev/null
  sacctmgr -n -P list assoc user=root format=user | grep -qx root || die "slurmdbd has no association for root"
}

# Stops slurmdbd and MariaDB and removes their data.
stop_accounting() {
  stop slurmdbd
  stop mariadb
  rm -rf "$DIR/mysql" "$DIR/mysql.pass" "$DIR/slurmdbd.conf"
}
