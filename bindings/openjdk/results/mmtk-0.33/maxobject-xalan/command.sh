#!/usr/bin/env bash
# ../maxobject/command.sh on the xalan stand-in, with Immix too, into this folder:
#   IMAGES=<dir of JDK images> bindings/openjdk/results/mmtk-0.33/maxobject-xalan/command.sh
here="$(cd "$(dirname "$0")" && pwd)"
TIMEOUT=120 WORKLOAD=xalan CAPS="1024 2048 8192" PLANS="MarkCompact Immix" OUT="$here" exec "$here/../maxobject/command.sh"
