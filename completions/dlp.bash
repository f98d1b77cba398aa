# bash completion for dlp                                   -*- shell-script -*-
# Subcommands, flags per subcommand, context names and job ids (the latter two
# from `dlp __complete contexts|jobs`, which never starts a daemon).

_dlp_call() {
  # Passes on --context/--config given on the command line being completed.
  local -a extra=()
  [[ -n $_dlp_context ]] && extra+=(--context "$_dlp_context")
  [[ -n $_dlp_config ]] && extra+=(--config "$_dlp_config")
  "${_dlp_bin:-dlp}" "${extra[@]}" "$@" 2>/dev/null | cut -f1
}
_dlp_jobs() { _dlp_call __complete jobs; }
_dlp_contexts() { _dlp_call __complete contexts; }

_dlp_files() {
  if declare -F _filedir >/dev/null; then
    _filedir '@(yaml|yml)'
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}

_dlp() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local _dlp_bin=${COMP_WORDS[0]} _dlp_context="" _dlp_config=""
  local commands="submit status list logs describe cancel delete wait validate render server config version completion profile metrics artifacts model top ui pipeline queue sweep admin"
  local global_flags="--context --config --no-color --help --help-all --version"

  local cmd="" sub="" verb="" i word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    case $word in
      --context) _dlp_context=${COMP_WORDS[i+1]}; ((i++)); continue ;;
      --config) _dlp_config=${COMP_WORDS[i+1]}; ((i++)); continue ;;
      -o|--output|--set|--name|--label|--state|--queue|--limit|--replica|--tail|--since|\
      --timeout|--backend|--field|--state-dir|--listen|-f|--file|--trace|--duration|--dir|--png|--x|\
      --user|--expires|--queues|--cohort|--nominal|--borrowing-limit|--lending-limit|--weight|\
      --priority-range|--job|--path|--alias|--output-dir)
        [[ $word == -f && $cmd == logs ]] || ((i++)); continue ;;
      -*) continue ;;
    esac
    if [[ -z $cmd ]]; then cmd=$word; elif [[ -z $sub ]]; then sub=$word; elif [[ -z $verb ]]; then verb=$word; fi
  done

  case $prev in
    --context) COMPREPLY=($(compgen -W "$(_dlp_contexts)" -- "$cur")); return ;;
    --config|--state-dir) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -o|--output|--output-dir)
      case $cmd/$sub in
        artifacts/get|model/get) COMPREPLY=($(compgen -d -- "$cur")); return ;;
      esac
      case $cmd in
        profile) COMPREPLY=($(compgen -W "table json" -- "$cur")) ;;
        metrics) COMPREPLY=($(compgen -W "table json csv" -- "$cur")) ;;
        render) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
        admin|queue|sweep|artifacts|model|pipeline) COMPREPLY=($(compgen -W "table json" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "table wide json yaml" -- "$cur")) ;;
      esac
      return ;;
    --trace|--png|--dir) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --x) COMPREPLY=($(compgen -W "step time" -- "$cur")); return ;;
    --state) COMPREPLY=($(compgen -W "Queued Running Succeeded Failed Cancelled" -- "$cur")); return ;;
    --backend) COMPREPLY=($(compgen -W "local remote slurm kubernetes" -- "$cur")); return ;;
    --field)
      case $cur in
        flavour=*) COMPREPLY=($(compgen -W "flavour=jobset flavour=job flavour=trainjob flavour=volcano" -- "$cur")) ;;
        kubeconfig=*) COMPREPLY=($(compgen -P kubeconfig= -f -- "${cur#kubeconfig=}")) ;;
        *) compopt -o nospace 2>/dev/null
           COMPREPLY=($(compgen -W "server= token= token-file= ca-file= insecure-skip-tls-verify= state-dir= partition= account= qos= workdir= rest-url= kubeconfig= context= namespace= flavour= queue= image= gpu-resource= gpu-type-label= training-runtime= output-claim=" -- "$cur")) ;;
      esac
      return ;;
    -f|--file) if [[ $cmd != logs ]]; then _dlp_files; return; fi ;;
    --set|--name|--label|--queue|--limit|--replica|--tail|--since|--timeout|--listen|--duration|\
    --user)
      return ;;
    --job) COMPREPLY=($(compgen -W "$(_dlp_jobs)" -- "$cur")); return ;;
    --path|--alias) return ;;
    --expires) COMPREPLY=($(compgen -W "1h 1d 7d 30d 90d" -- "$cur")); return ;;
  esac

  local flags="" args=""
  case $cmd in
    "") COMPREPLY=($(compgen -W "$commands $global_flags" -- "$cur")); return ;;
    submit) flags="-f --file --set --name --wait --follow --metrics -q --quiet"; args=files ;;
    status) flags="--why -o --output"; args=jobs ;;
    list) flags="--state --label --queue --limit -o --output" ;;
    logs) flags="-f --follow --replica --tail --since --timestamps --metrics"; args=jobs ;;
    describe) flags="-o --output"; args=jobs ;;
    cancel) flags="-q --quiet"; args=jobs ;;
    delete) flags="-f --force -q --quiet"; args=jobs ;;
    wait) flags="--timeout -q --quiet"; args=jobs ;;
    validate) flags="--set -q --quiet"; args=files ;;
    render) flags="--backend --field --set -o --output"; args=files ;;
    version) flags="--client" ;;
    completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
    profile) flags="--trace -o --output --duration --dir"; args=jobs ;;
    metrics) flags="--name --replica --replicas --log-y -o --output --plot --compare --png --svg --smooth --x"; args=jobs ;;
    artifacts)
      if [[ -z $sub ]]; then
        COMPREPLY=($(compgen -W "list get --help" -- "$cur")); return
      fi
      case $sub in
        list) flags="-o --output" ;;
        get) flags="-o --output-dir" ;;
      esac
      args=jobs ;;
    model)
      if [[ -z $sub ]]; then
        COMPREPLY=($(compgen -W "register list show get alias --help" -- "$cur")); return
      fi
      case $sub in
        register) flags="--job --path --alias" ;;
        list|show) flags="-o --output" ;;
        get) flags="-o --output-dir" ;;
        alias)
          if [[ -z $verb ]]; then
            COMPREPLY=($(compgen -W "set --help" -- "$cur")); return
          fi ;;
      esac ;;
    top) flags="--interval --once" ;;
    ui) flags="--print-url" ;;
    server)
      if [[ -z $sub ]]; then
        COMPREPLY=($(compgen -W "start stop status --state-dir --help" -- "$cur")); return
      fi
      [[ $sub == start ]] && flags="--listen" ;;
    config)
      if [[ -z $sub ]]; then
        COMPREPLY=($(compgen -W "view get-contexts current-context use-context set-context --help" -- "$cur"))
        return
      fi
      case $sub in
        use-context) args=contexts ;;
        set-context) flags="--backend --field --allow-insecure-http"; args=contexts ;;
      esac ;;
    sweep)
      if [[ -z $sub ]]; then
        COMPREPLY=($(compgen -W "submit status list cancel resume delete --help" -- "$cur")); return
      fi
      case $sub in
        submit) flags="--set --name --follow --foreground -q --quiet"; args=files ;;
        status) flags="-o --output --plot --png" ;;
        list) flags="-o --output" ;;
        resume) flags="-q --quiet" ;;
        delete) flags="-f --force -q --quiet" ;;
      esac ;;
    pipeline)
      if [[ -z $sub ]]; then
        COMPREPLY=($(compgen -W "status list cancel resume delete --help" -- "$cur")); return
      fi
      case $sub in
        resume) flags="-q --quiet" ;;
        delete) flags="-f --force -q --quiet" ;;
        *) flags="-o --output" ;;
      esac ;;
    queue)
      if [[ -z $sub && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "show --help" -- "$cur")); return
      fi
      flags="-o --output" ;;
    admin)
      if [[ -z $sub ]]; then
        COMPREPLY=($(compgen -W "tenant token queue --help" -- "$cur")); return
      fi
      if [[ -z $verb ]]; then
        case $sub in
          tenant) COMPREPLY=($(compgen -W "create update list show delete --help" -- "$cur")) ;;
          token) COMPREPLY=($(compgen -W "create list revoke --help" -- "$cur")) ;;
          queue) COMPREPLY=($(compgen -W "create update delete list --help" -- "$cur")) ;;
        esac
        return
      fi
      case $sub/$verb in
        tenant/create) flags="--user --queues -o --output" ;;
        tenant/update) flags="--queues --disk-quota -o --output" ;;
        tenant/list|tenant/show|token/list|queue/list|queue/delete) flags="-o --output" ;;
        token/create) flags="--expires -o --output" ;;
        queue/create|queue/update)
          flags="--cohort --nominal --borrowing-limit --lending-limit --weight --priority-range -o --output" ;;
      esac ;;
  esac

  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags --help $global_flags" -- "$cur"))
    return
  fi
  case $args in
    files) _dlp_files ;;
    jobs) COMPREPLY=($(compgen -W "$(_dlp_jobs)" -- "$cur")) ;;
    contexts) COMPREPLY=($(compgen -W "$(_dlp_contexts)" -- "$cur")) ;;
  esac
}

complete -F _dlp dlp
