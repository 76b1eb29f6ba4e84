#!/usr/bin/env bash
# A real one-node Slurm cluster on this machine, started without systemd, for trying the
# job array (nqueen-array.sbatch) and for the test suite (tests/suite/slurm.rs). As root,
# with Debian's slurmctld, slurmd, slurm-client and munge installed (.ci/run installs them):
#
#   deploy/slurm/local-cluster.sh start [GPUS]   # configure and start munge, slurmctld, slurmd
#   deploy/slurm/local-cluster.sh stop           # stop what start started
#
# A machine holds one such cluster: its configuration is /etc/slurm (ports 6817-6819), its
# state /var/spool. It requeues a task that exits 75 (RequeueExit=75) and forgets a
# finished job after 5 s. With GPUS, the node offers that many GPUs (gres gpu) from
# /dev/nvidia0.., or from stand-in character devices where the machine has none, so that
# Slurm hands each task its CUDA_VISIBLE_DEVICES.
set -euo pipefail

run=/run/nqueen-slurm
conf=/etc/slurm

die() {
    echo "local-cluster: $*" >&2
    exit 1
}

# Stops the process whose pid is in file $1, if it is still the program $2.
stop_pid() {
    local pid
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2> /dev/null)" = "$2" ]; then
        kill "$pid" 2> /dev/null || true
        for _ in $(seq 100); do
            [ -d "/proc/$pid" ] || break
            sleep 0.1
        done
        kill -9 "$pid" 2> /dev/null || true
    fi
    rm -f "$1"
}

stop() {
    stop_pid "$run/slurmd.pid" slurmd
    stop_pid "$run/slurmctld.pid" slurmctld
    stop_pid "$run/munged.pid" munged
    # Package scripts stumble over a stale pid file.
    rm -f /run/slurmctld.pid /run/slurmd.pid
}

start() {
    local gpus=${1:-0} host node
    [ "$(id -u)" -eq 0 ] || die "must run as root"
    for tool in munged mungekey slurmctld slurmd sbatch sinfo; do
        command -v "$tool" > /dev/null || die "$tool not found: install Debian's slurmctld slurmd slurm-client munge"
    done
    stop
    mkdir -p "$run"
    host=$(hostname -s)

    # munge: its run directory does not exist without systemd.
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
    [ -s /etc/munge/munge.key ] || runuser -u munge -- mungekey --create > /dev/null
    runuser -u munge -- munged 9>&-
    for _ in $(seq 50); do
        [ -s /run/munge/munged.pid ] && break
        sleep 0.1
    done
    cp /run/munge/munged.pid "$run/munged.pid"
    munge -n | unmunge > /dev/null || die "munge does not work"

    install -d -o slurm -g slurm /var/spool/slurmctld /var/log/slurm
    install -d /var/spool/slurmd "$conf"
    node=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host NodeAddr=127.0.0.1/")
    {
        echo "ClusterName=nqueen"
        echo "SlurmctldHost=$host(127.0.0.1)"
        echo "SlurmUser=slurm"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        # A requeued task may start again once its credential expires.
        echo "AuthInfo=cred_expire=10"
        echo "StateSaveLocation=/var/spool/slurmctld"
        echo "SlurmdSpoolDir=/var/spool/slurmd"
        echo "SlurmctldPidFile=$run/slurmctld.pid"
        echo "SlurmdPidFile=$run/slurmd.pid"
        echo "SlurmctldLogFile=/var/log/slurm/slurmctld.log"
        echo "SlurmdLogFile=/var/log/slurm/slurmd.log"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_Core"
        echo "MailProg=/bin/true"
        echo "ReturnToService=2"
        echo "JobRequeue=1"
        echo "RequeueExit=75"
        # Without these, jobs wait seconds to start and sbatch --wait polls for half a minute.
        echo "MinJobAge=5"
        echo "SchedulerParameters=batch_sched_delay=0,bf_interval=1,sched_interval=2"
        echo "JobCompType=jobcomp/filetxt"
        echo "JobCompLoc=/var/log/slurm/jobcomp.log"
        if [ "$gpus" -gt 0 ]; then
            echo "GresTypes=gpu"
            echo "$node Gres=gpu:$gpus State=UNKNOWN"
        else
            echo "$node State=UNKNOWN"
        fi
        echo "PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP"
    } > "$conf/slurm.conf"
    : > "$conf/gres.conf"
    for i in $(seq 0 $((gpus - 1))); do
        local dev=/dev/nvidia$i
        if [ ! -c "$dev" ]; then
            dev=/dev/nqueen-gpu$i
            [ -c "$dev" ] || mknod "$dev" c 1 3
        fi
        echo "Name=gpu File=$dev" >> "$conf/gres.conf"
    done

    slurmctld 9>&- || die "slurmctld did not start: $(tail -n 5 /var/log/slurm/slurmctld.log)"
    slurmd 9>&- || die "slurmd did not start: $(tail -n 5 /var/log/slurm/slurmd.log)"
    for _ in $(seq 150); do
        [ "$(sinfo -h -o %T 2> /dev/null)" = idle ] && return 0
        sleep 0.2
    done
    die "the node did not come up: $(sinfo -h -o '%T %E' 2>&1); $(tail -n 5 /var/log/slurm/slurmd.log)"
}

case ${1:-} in
    start) start "${2:-0}" ;;
    stop) stop ;;
    *)
        echo "usage: $0 start [GPUS] | stop" >&2
        exit 2
        ;;
esac
