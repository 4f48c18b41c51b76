# Sourced by the time studies (lease/command-time.sh, time-parts/command.sh): the order of their
# runs. for_each_run FN calls `FN round threads heap_mib image plan rest` for each round of ROUNDS
# (default 1 2 3), each threads:heap pair of CELLS (default "8:19 24:33") and each entry of the
# array CONFIGS (image:plan:rest), in an order rotated by the round so that no configuration always
# runs first; it stops at the first FN that fails.
for_each_run() {
  local fn=$1 r th t heap n k cfg rest
  for r in ${ROUNDS:-1 2 3}; do
    for th in ${CELLS:-8:19 24:33}; do
      t=${th%%:*}; heap=${th#*:}; n=${#CONFIGS[@]}
      for k in $(seq 0 $((n - 1))); do
        cfg=${CONFIGS[$(( (k + r) % n ))]}; rest=${cfg#*:}
        "$fn" "$r" "$t" "$heap" "${cfg%%:*}" "${rest%%:*}" "${rest#*:}" || return
      done
    done
  done
}
