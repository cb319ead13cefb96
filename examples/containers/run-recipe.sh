#!/usr/bin/env bash
# Runs a Dockerfile recipe of this folder without a container runtime, as its last stage would run: the host stands
# in for the base image (FROM is not pulled; earlier build stages are skipped, and what they build, e.g. the Go
# binary, must already be in the context as the file a COPY --from names, by its base name). Every path under /app
# is the folder `$ROOT/app`. WORKDIR, COPY, RUN, ENV, USER (not switched), CMD and ENTRYPOINT (exec form) are
# followed; the command then runs with only the image's ENV and the variables named in PASS_ENV (the run-time
# settings, e.g. CPLANE_READER), and PATH.
#   run-recipe.sh DOCKERFILE CONTEXT ROOT [ARGS appended to the command]
set -euo pipefail
dockerfile=$1 context=$2 root=$3
shift 3
mkdir -p "$root/app"
rooted() { sed "s#\(^\|[ \"=]\)/app#\1$root/app#g" <<<"$1"; }
last_from=$(grep -n '^FROM ' "$dockerfile" | tail -1 | cut -d: -f1)
workdir="$root/app"
env_args=()
command_json=''
entry_json=''
while IFS= read -r line; do
  case "$line" in
    WORKDIR\ *) workdir=$(rooted "${line#WORKDIR }"); mkdir -p "$workdir" ;;
    COPY\ --from=*)
      read -r _ _ src dest <<<"$line"
      cp "$context/$(basename "$src")" "$(rooted "$dest")" ;;
    COPY\ *)
      read -r -a parts <<<"${line#COPY }"
      dest=$(rooted "${parts[-1]}")
      [[ $dest = /* ]] || dest="$workdir/$dest"
      for src in "${parts[@]:0:${#parts[@]}-1}"; do cp "$context/$src" "$dest"; done ;;
    RUN\ *) (cd "$workdir" && PIP_NO_INDEX=1 npm_config_offline=true bash -euo pipefail -c "$(rooted "${line#RUN }")") >&2 ;;
    ENV\ *) env_args+=("$(rooted "${line#ENV }")") ;;
    CMD\ *) command_json=$(rooted "${line#CMD }") ;;
    ENTRYPOINT\ *) entry_json=$(rooted "${line#ENTRYPOINT }") ;;
  esac
done < <(tail -n +"$last_from" "$dockerfile" | grep -v '^\s*#')
for name in ${PASS_ENV:-}; do env_args+=("$name=${!name}"); done
mapfile -t argv < <(node -e 'for (const a of [...JSON.parse(process.argv[1] || "[]"), ...JSON.parse(process.argv[2] || "[]")]) console.log(a)' "$entry_json" "$command_json")
cd "$workdir"
exec env -i PATH="$PATH" HOME="$root" "${env_args[@]}" "${argv[@]}" "$@"
