# Sourced by .ci/run and .ci/instances: start_pgbouncer starts Debian's pgbouncer in transaction
# mode in front of the local Postgres (127.0.0.1:5432) on a free port, sets pgb_port, and stops
# it when the calling script exits.
start_pgbouncer() {
  pgb=$(mktemp -d)
  pgb_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  sed -e "s#@DIR@#$pgb#g" -e "s#@PORT@#$pgb_port#g" .ci/pgbouncer.ini > "$pgb/pgbouncer.ini"
  echo '"postgres" ""' > "$pgb/users.txt"
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres "$pgb"
    su postgres -s /bin/sh -c "pgbouncer -d $pgb/pgbouncer.ini"   # it refuses to run as root
  else
    pgbouncer -d "$pgb/pgbouncer.ini"
  fi
  trap 'kill "$(cat "$pgb/pgbouncer.pid" 2>/dev/null)" 2> /dev/null || true' EXIT
  for _ in $(seq 30); do pg_isready -h 127.0.0.1 -p "$pgb_port" -q && break; sleep 0.5; done
  pg_isready -h 127.0.0.1 -p "$pgb_port"
}
