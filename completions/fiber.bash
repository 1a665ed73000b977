# bash completion for fiber(1)                             -*- shell-script -*-
#
# Installed as bash-completion/completions/fiber; also works sourced on its
# own, without bash-completion, with less help for --opt=value.

# The ids and names of the runs kept: the directory names under the runs
# directory, and the "name" field of each run.json (one field per line).
_fiber_runs() {
    local state=${XDG_STATE_HOME-} root d
    [[ $state == /* ]] || state=${HOME:-/tmp}/.local/state
    root=$state/fiber/runs
    local -a runs=() records=()
    for d in "$root"/*/; do
        [[ -d $d ]] || continue
        d=${d%/}
        runs+=("${d##*/}")
        [[ -f $d/run.json ]] && records+=("$d/run.json")
    done
    if ((${#records[@]})); then
        local name
        while IFS= read -r name; do
            runs+=("$name")
        done < <(sed -n 's/^ *"name": *"\(.*\)",\{0,1\}$/\1/p' "${records[@]}" 2>/dev/null)
    fi
    local r
    local -A seen=()
    for r in "${runs[@]}"; do
        [[ $r == "$cur"* && -z ${seen[$r]-} ]] && COMPREPLY+=("$r") && seen[$r]=1
    done
}

_fiber() {
    local cur prev words cword split=false
    if declare -F _init_completion >/dev/null; then
        _init_completion -s -n : || return
    else
        # COMP_WORDS splits "--log=info" and "K=V" at = and :; join them.
        local i w join=false
        words=() cword=0
        for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
            w=${COMP_WORDS[i]}
            if ((i > 1)) && { [[ $join == true ]] || [[ $w =~ ^[=:]+$ ]]; }; then
                words[${#words[@]} - 1]+=$w
            else
                words+=("$w")
            fi
            [[ $w =~ ^[=:]+$ ]] && join=true || join=false
            ((i == COMP_CWORD)) && cword=$((${#words[@]} - 1))
        done
        cur=${words[cword]}
        prev=${words[cword - 1]}
        if [[ $cur == --*=* ]]; then
            prev=${cur%%=*} cur=${cur#*=} split=true
        fi
    fi
    COMPREPLY=()

    # Settings flags (runtime/src/config/setting_table.cpp) and --config, as
    # fiber run and fiber config show take them; all take a value.
    local settings='--backend --listen-host --advertise-host --listen-port --heartbeat-interval
        --heartbeat-timeout --start-timeout --prefetch --log --cpu --memory
        --gpu --engine --image --image-files --registry --kubeconfig --context
        --namespace --host-network --templates --master --profile --config'
    local run_valued="$settings --env --name --grace -o --output"
    local run_flags='-d --detach --build -q --quiet --dry-run -h --help'

    # The value of an option, when the word before it is one.
    case $prev in
        --backend)
            mapfile -t COMPREPLY < <(compgen -W 'local docker podman container kubernetes' -- "$cur")
            return
            ;;
        --engine)
            mapfile -t COMPREPLY < <(compgen -W 'auto docker podman' -- "$cur")
            return
            ;;
        --host-network)
            mapfile -t COMPREPLY < <(compgen -W 'true false' -- "$cur")
            return
            ;;
        --master)
            mapfile -t COMPREPLY < <(compgen -W 'local cluster' -- "$cur")
            return
            ;;
        --log)
            mapfile -t COMPREPLY < <(compgen -W 'info warning' -- "$cur")
            return
            ;;
        --config | --image-files | --kubeconfig)
            compopt -o default 2>/dev/null
            return
            ;;
        --listen-host | --advertise-host)
            mapfile -t COMPREPLY < <(compgen -A hostname -- "$cur")
            return
            ;;
        --listen-port | --heartbeat-interval | --heartbeat-timeout | \
            --start-timeout | --prefetch | --cpu | --memory | --gpu | \
            --profile | --env | --name | --image | --registry | --push | \
            --context | --namespace | --templates | --grace | --worker)
            return
            ;;
    esac
    [[ $split == true ]] && return

    if ((cword == 1)); then
        mapfile -t COMPREPLY < <(compgen -W 'run ps logs stop config image init -h --help' -- "$cur")
        return
    fi

    local i
    case ${words[1]} in
        run)
            # Options come before PROGRAM; from PROGRAM on, the words are
            # the program's.
            for ((i = 2; i < cword; i++)); do
                case ${words[i]} in
                    --) ((i++)); break ;;
                    --*=*) ;;
                    -*) [[ " ${run_valued//[[:space:]]/ } " == *" ${words[i]} "* ]] && ((i++)) ;;
                    *) break ;;
                esac
            done
            if ((i < cword)); then
                # An argument of PROGRAM: complete as for PROGRAM itself.
                local j
                for ((j = i; j < COMP_CWORD; j++)); do
                    [[ ${COMP_WORDS[j]} == "${words[i]}" ]] && break
                done
                if declare -F _command_offset >/dev/null && ((j < COMP_CWORD)); then
                    _command_offset "$j"
                else
                    compopt -o default 2>/dev/null
                fi
            elif [[ $cur == -* && ${words[i - 1]} != -- ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$run_valued $run_flags" -- "$cur")
            elif [[ $cur == */* ]]; then
                compopt -o default 2>/dev/null
            else
                # PROGRAM: a command on PATH, or a file.
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <({ compgen -c -- "$cur"; compgen -f -- "$cur"; } | sort -u)
            fi
            ;;
        ps)
            mapfile -t COMPREPLY < <(compgen -W '-a --all --json -h --help' -- "$cur")
            ;;
        logs)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '-f --follow --worker --all -h --help' -- "$cur")
            else
                _fiber_runs
            fi
            ;;
        stop)
            if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W '--force -h --help' -- "$cur")
            else
                _fiber_runs
            fi
            ;;
        config)
            if ((cword == 2)); then
                mapfile -t COMPREPLY < <(compgen -W 'show -h --help' -- "$cur")
            elif [[ ${words[2]} == show && $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$settings --json -h --help" -- "$cur")
            fi
            ;;
        image)
            if ((cword == 2)); then
                mapfile -t COMPREPLY < <(compgen -W 'build -h --help' -- "$cur")
            elif [[ ${words[2]} == build && $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "--push -q --quiet $settings -h --help" -- "$cur")
            elif [[ ${words[2]} == build ]]; then
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <({ compgen -c -- "$cur"; compgen -f -- "$cur"; } | sort -u)
            fi
            ;;
        init)
            mapfile -t COMPREPLY < <(compgen -W '-h --help' -- "$cur")
            ;;
    esac
} &&
    complete -F _fiber fiber

# ex: filetype=sh
