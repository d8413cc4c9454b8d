#!/usr/bin/env bash
# Makes sure PostgreSQL, RabbitMQ and Redis answer on 127.0.0.1: starts them, or installs them from
# Debian's packages first when the machine has none. Idempotent; safe to run on every start.
set -euo pipefail

log() { printf '[infra] %s\n' "$*"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_port() {
  local port=$1 name=$2
  for _ in $(seq 1 120); do port_open "$port" && return 0; sleep 0.5; done
  log "$name did not open port $port"; return 1
}
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v pg_ctlcluster >/dev/null 2>&1 || missing+=(postgresql)
command -v rabbitmq-server >/dev/null 2>&1 || missing+=(rabbitmq-server)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ] && ! { port_open 5432 && port_open 5672 && port_open 6379; }; then
  log "installing ${missing[*]} from Debian"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! port_open 5432; then
  log "starting PostgreSQL"
  version=$(ls /etc/postgresql | sort -V | tail -n1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  wait_port 5432 PostgreSQL
  # A fresh Debian cluster wants a password over TCP: give the postgres role the one our URLs use.
  as_root su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null 2>&1 || true
fi
# The whole test suite runs several stacks at once (each service keeps a small pool): Debian's default of
# 100 connections is too tight. Raise it once per machine; it takes a PostgreSQL restart.
max_conn=$(psql "${POSTGRES_ADMIN_URL:-postgres://postgres:postgres@127.0.0.1:5432/postgres}" -Atc 'SHOW max_connections' 2>/dev/null || echo 0)
if [ "${max_conn:-0}" -gt 0 ] && [ "$max_conn" -lt 300 ]; then
  log "raising PostgreSQL max_connections from $max_conn to 300"
  psql "${POSTGRES_ADMIN_URL:-postgres://postgres:postgres@127.0.0.1:5432/postgres}" -qc 'ALTER SYSTEM SET max_connections = 300' >/dev/null
  version=$(ls /etc/postgresql | sort -V | tail -n1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main restart || true
  wait_port 5432 PostgreSQL
fi

if ! port_open 6379; then
  log "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  as_root redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_port 6379 Redis
fi
if ! port_open 5672; then
  log "starting RabbitMQ"
  as_root rabbitmq-server -detached >/dev/null 2>&1 || true
  wait_port 5672 RabbitMQ
fi
# AMQP accepts connections a moment after the port opens.
for _ in $(seq 1 60); do
  if node -e "
    const s=require('net').connect(5672,'127.0.0.1',()=>s.write(Buffer.from('AMQP\x00\x00\x09\x01')));
    s.once('data',()=>{s.destroy();process.exit(0)});s.once('error',()=>process.exit(1));setTimeout(()=>process.exit(1),1000);
  "; then break; fi
  sleep 0.5
done
log "PostgreSQL, RabbitMQ and Redis are up"
