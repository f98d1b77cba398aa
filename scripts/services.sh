#!/usr/bin/env bash
# Services the test suite needs, started by scripts/test.sh:
#   scripts/services.sh list         names, one a line
#   scripts/services.sh start NAME   starts it and waits until it is ready
#   scripts/services.sh stop NAME    stops it
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: $0 list | start NAME | stop NAME" >&2; exit 2; }
[ $# -ge 1 ] || usage
case "$1" in
  list)
    echo slurm
    echo kubernetes
    ;;
  start|stop)
    [ $# -eq 2 ] || usage
    case "$2" in
      slurm) exec "$here/slurm/$1.sh" ;;
      kubernetes) exec "$here/kubernetes/$1.sh" ;;
      *) echo "services: unknown service '$2'" >&2; exit 2 ;;
    esac
    ;;
  *) usage ;;
esac
